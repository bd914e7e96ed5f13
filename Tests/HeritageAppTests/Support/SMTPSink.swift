import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The SMTP server of the mail tests: Tests/mail/smtp_sink.py (aiosmtpd, installed by scripts/setup)
/// on a free loopback port, keeping each message it accepts as N.eml in a folder; killed at the end.
final class SMTPSink: @unchecked Sendable {
    let folder: String
    let port: Int
    private let process = Process()

    init(_ options: [String] = []) async throws {
        let base = try TestPaths.temporaryDirectory(prefix: "har-smtp")
        folder = base + "/in"
        let outputPath = base + "/sink.out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        // The python3 of PATH, the one scripts/setup installed aiosmtpd for.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestPaths.packageRoot + "/Tests/mail/smtp_sink.py", folder] + options
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: base + "/sink.err")
        try process.run()
        var found: Int?
        let process = process
        try await waitUntil("the SMTP sink listens", timeout: 30) {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                found = Int(line.dropFirst("listening on ".count))
            }
            guard found != nil || process.isRunning else {
                throw TestFailure("smtp_sink.py exited (is aiosmtpd installed? scripts/setup)")
            }
            return found != nil
        }
        port = try #require(found)
    }

    var url: String { "smtp://127.0.0.1:\(port)" }

    /// The files of messages kept, in arrival order (1.eml, 2.eml, …).
    func messageFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".eml") }
            .sorted { Int($0.dropLast(4)) ?? 0 < Int($1.dropLast(4)) ?? 0 }
            .map { folder + "/" + $0 }
    }

    /// What the sink noted of message N: envelope, TLS, the authenticated user, its answer.
    func envelope(_ number: Int) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(number).json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    func waitForMessages(_ count: Int, timeout: Double = 60) async throws -> [ParsedMail] {
        try await waitUntil("\(count) message(s) reach the sink", timeout: timeout) { messageFiles().count >= count }
        return try await messageFiles().asyncMap { try await ParsedMail.parse(file: $0) }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One message as Python's `email` package reads it (Tests/mail/parse_mail.py).
struct ParsedMail: @unchecked Sendable {
    let fields: [String: Any]

    static func parse(file: String) async throws -> ParsedMail {
        let result = try await runProgram(
            "/usr/bin/env", ["python3", TestPaths.packageRoot + "/Tests/mail/parse_mail.py", file])
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else { throw TestFailure("parse_mail.py failed: \(result.stderr)") }
        return ParsedMail(fields: object)
    }

    subscript(_ key: String) -> String? { fields[key] as? String }
    var headerNames: [String] { fields["header_names"] as? [String] ?? [] }
    var defects: [String] { fields["defects"] as? [String] ?? [] }
    var longestLine: Int { fields["longest_line"] as? Int ?? Int.max }
    var bareLineFeeds: Int { fields["bare_lf"] as? Int ?? Int.max }
    /// The plain-text part with its canonical CRLF read back as LF.
    var text: String { (self["text"] ?? "").replacingOccurrences(of: "\r\n", with: "\n") }
    var html: String { (self["html"] ?? "").replacingOccurrences(of: "\r\n", with: "\n") }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
