import Foundation
import Glibc
// Helpers: a server on 127.0.0.1 port 0 with its own temporary folders, a GET over a raw connection
// (TestSupport's RawConnection: exactly what went over the wire), and curl as a subprocess.
@_exported import TestSupport

@testable import HTTPServer

/// A scratch directory removed when the test ends.
final class ScratchDirectory {
    let path: String
    init() throws {
        path = try TestPaths.temporaryDirectory(prefix: "har-http-test")
    }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
    deinit { remove() }
}

/// Collects access-log entries and error-log lines from the server's threads.
final class LogSink: @unchecked Sendable {
    private let lock = NSLock()
    private var _entries: [AccessLogEntry] = []
    private var _errors: [String] = []
    var entries: [AccessLogEntry] { lock.withLock { _entries } }
    var errors: [String] { lock.withLock { _errors } }
    func add(_ entry: AccessLogEntry) { lock.withLock { _entries.append(entry) } }
    func add(_ error: String) { lock.withLock { _errors.append(error) } }
}

final class TestServer {
    let scratch: ScratchDirectory
    let server: HTTPServer
    let log = LogSink()
    var port: Int { server.port }
    var temporaryDirectory: String { scratch.path + "/tmp" }

    init(
        limits: ServerLimits = ServerLimits(), tls: (cert: String, key: String)? = nil, threadCount: Int = 4,
        configure: (inout Router, String) throws -> Void
    ) throws {
        scratch = try ScratchDirectory()
        var router = Router()
        try configure(&router, scratch.path)
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, threadCount: threadCount, limits: limits,
            temporaryDirectory: scratch.path + "/tmp", tlsCertificatePath: tls?.cert, tlsKeyPath: tls?.key)
        let sink = log
        server = HTTPServer(
            configuration: configuration, router: router,
            accessLog: { sink.add($0) }, errorLog: { sink.add($0) })
        try server.start()
    }

    /// Temporary files the server left behind.
    func leftoverTemporaryFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? []
    }

    /// Descriptors of this process still open on files in the temporary directory (leaks).
    func openTemporaryDescriptors() -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }
        .filter { $0.hasPrefix(scratch.path) }
    }

    /// Waits (bounded) until no temporary file or descriptor of a finished request is left: they go when
    /// the request completes, which may be just after its answer reached the client. Polled, not slept for.
    func waitUntilNothingIsLeft() async throws {
        try await waitUntil("the requests' temporary files and descriptors are gone", timeout: 10, interval: 0.01) {
            leftoverTemporaryFiles().isEmpty && openTemporaryDescriptors().isEmpty
        }
    }

    func stop() {
        server.stop(gracePeriod: 2)
        scratch.remove()
    }
}

func get(_ port: Int, _ path: String, headers: [String] = []) throws -> RawResponse {
    let connection = try RawConnection(port: port)
    let extra = headers.map { $0 + "\r\n" }.joined()
    return try connection.request("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(extra)Connection: close\r\n\r\n")
}

struct ProcessResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs a program (curl, sha256sum, openssl) and collects its output.
func run(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
        error: String(decoding: errData, as: UTF8.self))
}

/// "HTTP status code" from curl -w, given the other curl arguments.
func curlStatus(_ arguments: [String]) throws -> (status: Int, body: String) {
    let result = try run("/usr/bin/curl", ["-s", "-o", "/dev/stdout", "-w", "\n%{http_code}"] + arguments)
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
    let status = Int(lines.last ?? "") ?? -1
    return (status, lines.dropLast().joined(separator: "\n"))
}

let securityHeaderNames = ["Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"]
