import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A response as it came over a raw connection: its status, every header in order, its body's bytes.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// One TCP connection to a test server on 127.0.0.1, spoken to byte by byte: it shows exactly what
/// went over the wire, sends requests whose body never comes, and plays slow clients. Optionally from
/// another loopback address (127.0.0.2 …), for limits counted per client address.
public final class RawConnection: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int, from source: String? = nil, timeoutSeconds: Int = 15) throws {
        // A local until connected: once every stored property is set, a throwing init runs deinit,
        // which would close the descriptor a second time (by then perhaps another thread's).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            guard Self.onAddress(fd, bind, source, port: 0) == 0 else {
                Glibc.close(fd)
                throw TestFailure("bind to \(source) failed: errno \(errno)")
            }
        }
        guard Self.onAddress(fd, Glibc.connect, "127.0.0.1", port: port) == 0 else {
            Glibc.close(fd)
            throw TestFailure("connect failed: errno \(errno)")
        }
        self.fd = fd
    }

    /// `bind` or `connect` of `fd` to an IPv4 address and port.
    private static func onAddress(
        _ fd: Int32, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, _ host: String, port: Int
    ) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    deinit { Glibc.close(fd) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        guard sendAll(bytes) else { throw TestFailure("send failed: errno \(errno)") }
    }

    /// Sends all of `text`; false when the peer has closed the connection (a server may refuse a
    /// request before all of it is sent).
    @discardableResult
    public func sendAll(_ text: String) -> Bool { sendAll(Array(text.utf8)) }

    @discardableResult
    public func sendAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw TestFailure("recv failed: errno \(errno)") }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Bytes received and not yet read as a response.
    public var bufferedByteCount: Int { buffer.count }

    /// True when the peer has closed the connection: end of stream, or a reset (a server refusing a
    /// connection at once may reset it rather than close it). False when data came, or on timeout.
    public func isClosedByPeer() -> Bool { isClosed(flags: 0) }

    /// The same without waiting: true when the end of the stream (or a reset) is already there.
    public func isClosedNow() -> Bool { isClosed(flags: Int32(MSG_DONTWAIT)) }

    private func isClosed(flags: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, flags) }
            if count == 0 { return true }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                // Waiting, what came is the answer; not waiting, read on to what is already there.
                if flags == 0 { return false }
                continue
            }
            if errno == EINTR { continue }
            return errno == ECONNRESET || errno == EPIPE
        }
    }

    /// The next response: its head, and its body when it has one (by Content-Length, or to the end of
    /// the stream when it has neither a length nor chunks).
    public func readResponse(toHead: Bool = false) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
            if headEnd == nil, try !fill() { throw TestFailure("connection closed before a response") }
        }
        guard let end = headEnd else { throw TestFailure("no head") }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestFailure("bad status line \(head)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if toHead || status == 304 || status == 204 { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length { if try !fill() { throw TestFailure("short body") } }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            throw TestFailure("chunked responses not expected")
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Sends one request and reads its answer.
    public func request(_ text: String, toHead: Bool = false) throws -> RawResponse {
        try send(text)
        return try readResponse(toHead: toHead)
    }
}
