import Foundation

/// A real `har serve` process on a free loopback port, with a data folder of its own.
final class RunningServer: @unchecked Sendable {
    let process = Process()
    let dataDir: String
    private(set) var port = 0
    private let errors = Pipe()
    private let output = Pipe()
    private var stderrText = ""

    /// Starts `har serve` and waits until it says where it listens. Throws with what it printed when
    /// it exits first.
    init(environment extra: [String: String] = [:], arguments: [String] = [], dataDir: String? = nil) throws {
        self.dataDir = try dataDir ?? TestPaths.temporaryDirectory()
        process.executableURL = URL(fileURLWithPath: TestPaths.harExecutable)
        process.arguments = ["serve"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: TestPaths.packageRoot)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAR_") }
        environment["HAR_PORT"] = "0"
        environment["HAR_DATA_DIR"] = self.dataDir
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw StartFailure(status: process.terminationStatus, stderr: stderrText)
            }
            stderrText += String(decoding: chunk, as: UTF8.self)
            if let range = stderrText.range(of: #"listening on https?://[^:]+:(\d+)"#, options: .regularExpression) {
                let match = String(stderrText[range])
                port = Int(match.split(separator: ":").last ?? "") ?? 0
                return
            }
        }
        process.terminate()
        throw StartFailure(status: -1, stderr: stderrText)
    }

    struct StartFailure: Error, CustomStringConvertible {
        let status: Int32
        let stderr: String
        var description: String { "har serve exited \(status): \(stderr)" }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM and waits; returns the exit status and everything printed on standard error.
    func stop() -> (status: Int32, stderr: String) {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        stderrText += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stderrText)
    }

    /// Standard output so far (the access log), after the process ended.
    func accessLog() -> String { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dataDir)
    }
}

/// Runs `har` to completion with arguments and environment; returns its status and standard error.
func runHar(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (
    status: Int32, stderr: String, stdout: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: TestPaths.harExecutable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: TestPaths.packageRoot)
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAR_") }
    for (key, value) in extra { environment[key] = value }
    process.environment = environment
    let errors = Pipe()
    let output = Pipe()
    process.standardError = errors
    process.standardOutput = output
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: errData, as: UTF8.self), String(decoding: outData, as: UTF8.self)
    )
}

/// A response as curl saw it.
struct CurlResponse {
    let status: Int
    let headers: [String: String]
    let body: String
}

/// One request with /usr/bin/curl (a real client on a real socket).
func curl(_ url: String, _ extra: [String] = []) throws -> CurlResponse {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    let headerFolder = try TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: headerFolder) }
    let headerFile = headerFolder + "/headers"
    process.arguments = ["-sS", "-D", headerFile, "--max-time", "30"] + extra + [url]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let body = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
    var status = 0
    var headers: [String: String] = [:]
    for line in headerText.components(separatedBy: "\r\n") {
        if line.hasPrefix("HTTP/") {
            status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
    }
    return CurlResponse(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
}
