import Foundation

/// A browser without JavaScript: curl with a cookie jar of its own, against a `RunningServer`.
final class WebClient {
    let base: String
    let jar: String

    init(_ server: RunningServer) throws {
        base = server.baseURL
        jar = try TestPaths.temporaryDirectory() + "/cookies"
    }

    func get(_ path: String, _ extra: [String] = []) throws -> CurlResponse {
        try curl(base + path, ["-b", jar, "-c", jar] + extra)
    }

    /// POSTs form fields (urlencoded by curl).
    func post(_ path: String, _ fields: [(String, String)], _ extra: [String] = []) throws -> CurlResponse {
        var arguments = ["-b", jar, "-c", jar]
        for (name, value) in fields { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        if fields.isEmpty && !extra.contains("--data-binary") { arguments += ["-X", "POST"] }
        return try curl(base + path, arguments + extra)
    }

    func postJSON(_ path: String, _ json: String, csrf: String?) throws -> CurlResponse {
        var arguments = [
            "-b", jar, "-c", jar, "-H", "Content-Type: application/json", "-H", "Accept: application/json",
            "--data-binary", json,
        ]
        if let csrf { arguments += ["-H", "X-CSRF-Token: \(csrf)"] }
        return try curl(base + path, arguments)
    }

    /// The CSRF token the page at `path` puts in its forms.
    func csrf(from path: String = "/signin") throws -> String {
        let page = try get(path).body
        guard let range = page.range(of: #"name="_csrf" value="[0-9a-f]+""#, options: .regularExpression) else {
            return ""
        }
        return String(page[range].dropFirst(#"name="_csrf" value=""#.count).dropLast())
    }

    func signIn(_ email: String, _ password: String = "correct horse") throws -> CurlResponse {
        try post("/signin", [("_csrf", try csrf()), ("email", email), ("password", password)])
    }

    /// The value of a cookie in the jar.
    func cookie(_ name: String) -> String? {
        guard let text = try? String(contentsOfFile: jar, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count >= 7 && fields[5] == name { return String(fields[6]) }
        }
        return nil
    }

    func setCookie(_ name: String, _ value: String) throws {
        let line = "127.0.0.1\tFALSE\t/\tFALSE\t0\t\(name)\t\(value)\n"
        let existing = (try? String(contentsOfFile: jar, encoding: .utf8)) ?? ""
        try (existing + line).write(toFile: jar, atomically: true, encoding: .utf8)
    }
}

/// Runs SQL on a server's database with the sqlite3 shell (the server keeps running: WAL).
@discardableResult
func sqlite(_ dataDir: String, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = ["-cmd", ".timeout 5000", dataDir + "/har.sqlite", sql]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

func uniqueEmail() -> String { "volunteer.\(UUID().uuidString.prefix(8).lowercased())@example.org" }
