import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a finished program printed, and how it ended.
public struct ProgramResult: Sendable {
    public let status: Int32
    public let stderr: String
    public let stdout: String
}

/// Runs a program to completion on a thread of its own (never on the concurrency pool), its output in
/// files (a pipe nobody drains would block it).
public func runProgram(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    directory: String? = nil
) async throws -> ProgramResult {
    try await blocking {
        let folder = try TestPaths.temporaryDirectory(prefix: "har-run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outPath = folder + "/out"
        let errPath = folder + "/err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        process.waitUntilExit()
        return ProgramResult(
            status: process.terminationStatus,
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "")
    }
}

/// The environment of a `har` child: this process's, without any `HAR_` variable, plus `extra`.
public func harEnvironment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAR_") }
    for (key, value) in extra { environment[key] = value }
    return environment
}

/// Runs `har` to completion with arguments and environment; returns its status and output.
public func runHar(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> ProgramResult {
    try await runProgram(
        TestPaths.harExecutable, arguments, environment: harEnvironment(extra), directory: TestPaths.packageRoot)
}

/// A `har` process of the built binary (`platform` or `serve`), its output in files (a pipe nobody
/// drains would block it), killed with SIGKILL at the end if still running.
public final class HarProcess: @unchecked Sendable {
    public let process = Process()
    public let outputPath: String
    public let errorPath: String

    public init(_ arguments: [String], environment extra: [String: String], folder: String) throws {
        outputPath = folder + "/\(arguments[0])-\(UUID().uuidString).out"
        errorPath = outputPath + ".err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: TestPaths.harExecutable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: TestPaths.packageRoot)
        process.environment = harEnvironment(["HAR_ACCESS_LOG": "false"].merging(extra) { $1 })
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    /// The port from the "listening on http://127.0.0.1:PORT" line (stdout for `platform`, stderr for `serve`).
    public func waitForPort(timeout: Double = 30) async throws -> Int {
        var port: Int?
        try await waitUntil("har \(process.arguments ?? []) says where it listens", timeout: timeout, interval: 0.02) {
            for path in [outputPath, errorPath] {
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                if let range = text.range(of: #"listening on https?://[^\s/]+:\d+"#, options: .regularExpression) {
                    port = Int(text[range].split(separator: ":").last ?? "")
                    return true
                }
            }
            guard process.isRunning else { throw TestFailure("har \(process.arguments ?? []) exited: \(errors)") }
            return false
        }
        guard let port else { throw TestFailure("har \(process.arguments ?? []) did not start: \(errors)") }
        return port
    }

    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then waits for the exit off the concurrency pool.
    public func terminate() async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        await waitForExit()
    }

    public func killHard() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await waitForExit()
    }

    public func waitForExit() async {
        let process = process
        _ = try? await blocking { process.waitUntilExit() }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One request with /usr/bin/curl, for what the test client does not speak (TLS).
public func curlProcess(_ url: String, _ extra: [String] = []) async throws -> HTTPResponse {
    let folder = try TestPaths.temporaryDirectory(prefix: "har-curl")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let headerFile = folder + "/headers"
    let result = try await runProgram(
        "/usr/bin/curl", ["-sS", "-D", headerFile, "--max-time", "30"] + extra + [url])
    let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
    var status = 0
    var headers: [HTTPResponse.Header] = []
    for line in headerText.components(separatedBy: "\r\n") {
        if line.hasPrefix("HTTP/") {
            status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            headers = []
        } else if let colon = line.firstIndex(of: ":") {
            headers.append(
                .init(
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }
    return HTTPResponse(status: status, headerList: headers, bytes: Array(result.stdout.utf8))
}
