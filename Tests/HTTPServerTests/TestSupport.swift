import Foundation
import Glibc
// Helpers: a server on 127.0.0.1 port 0 with its own temporary folders, a raw POSIX socket client
// that shows exactly what went over the wire, and curl as a subprocess.
@_exported import TestSupport

@testable import HTTPServer

struct TestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

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

struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    func headers(named name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// One TCP connection, spoken to byte by byte.
final class RawConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeoutSeconds: Int = 15) throws {
        // A local until connected: once every stored property is set, a throwing init runs deinit,
        // which would close the descriptor a second time (by then perhaps another thread's).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw TestError("connect failed: errno \(errno)")
        }
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw TestError("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw TestError("recv failed: errno \(errno)") }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Bytes received and not yet read as a response.
    var bufferedByteCount: Int { buffer.count }

    /// True when the peer has closed the connection: end of stream, or a reset (a server refusing a
    /// connection at once may reset it rather than close it). False when data came, or on timeout.
    func isClosedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return false
            }
            if errno == EINTR { continue }
            return errno == ECONNRESET || errno == EPIPE
        }
    }

    func readResponse(toHead: Bool = false) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
            if headEnd == nil, try !fill() { throw TestError("connection closed before a response") }
        }
        guard let end = headEnd else { throw TestError("no head") }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestError("bad status line \(head)") }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if toHead || status == 304 || status == 204 { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length { if try !fill() { throw TestError("short body") } }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            throw TestError("chunked responses not expected")
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Sends one request and reads its answer.
    func request(_ text: String, toHead: Bool = false) throws -> RawResponse {
        try send(text)
        return try readResponse(toHead: toHead)
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
