import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A response as the client read it off the wire.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// Every header in order, names as sent.
    public let headerList: [Header]
    public let bytes: [UInt8]

    public struct Header: Sendable {
        public let name: String
        public let value: String
    }

    public init(status: Int, headerList: [Header], bytes: [UInt8]) {
        self.status = status
        self.headerList = headerList
        self.bytes = bytes
    }

    /// Headers by lower-cased name (the last one of a name wins).
    public var headers: [String: String] {
        var map: [String: String] = [:]
        for header in headerList { map[header.name.lowercased()] = header.value }
        return map
    }

    public func headers(named name: String) -> [String] {
        headerList.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var body: String { String(decoding: bytes, as: UTF8.self) }
}

/// A browser without JavaScript, in Swift on POSIX sockets: one keep-alive connection to a loopback
/// server (opened again when the server closed it), a cookie jar, forms and multipart uploads. Each
/// request's blocking I/O runs on a thread of its own, so an awaiting test never holds a thread of the
/// Swift concurrency pool that an in-process server's handlers need. One request at a time per client.
public final class HTTPClient: @unchecked Sendable {
    public let host: String
    public let port: Int
    public var timeoutSeconds = 30
    private let lock = NSLock()
    private var jar: [(name: String, value: String)] = []
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// A client for `http://HOST:PORT` (anything after the port is ignored).
    public convenience init(baseURL: String) throws {
        guard baseURL.hasPrefix("http://") else { throw TestFailure("not a plain-HTTP URL: \(baseURL)") }
        let authority = baseURL.dropFirst("http://".count).prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...])
        else { throw TestFailure("no port in \(baseURL)") }
        self.init(host: String(authority[..<colon]), port: port)
    }

    deinit { closeConnection() }

    // MARK: Requests

    public func get(_ path: String, headers: [(String, String)] = []) async throws -> HTTPResponse {
        try await send("GET", path, headers: headers)
    }

    /// POSTs form fields, urlencoded.
    public func post(_ path: String, form: [(String, String)], headers: [(String, String)] = []) async throws
        -> HTTPResponse
    {
        try await send(
            "POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: Array(FormEncoding.urlencoded(form).utf8))
    }

    /// POSTs a multipart/form-data body, as a file input sends it.
    public func post(_ path: String, multipart parts: [MultipartPart], headers: [(String, String)] = [])
        async throws -> HTTPResponse
    {
        let boundary = "----har-test-\(UUID().uuidString)"
        return try await send(
            "POST", path, headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")] + headers,
            body: MultipartPart.body(parts, boundary: boundary))
    }

    /// Sends one request (a `Cookie` header from the jar unless `headers` has one) and reads the answer.
    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [])
        async throws -> HTTPResponse
    {
        try await blocking { try self.exchange(method, path, headers: headers, body: body) }
    }

    // MARK: Cookies

    public func cookie(_ name: String) -> String? { lock.withLock { jar.last { $0.name == name }?.value } }

    public func setCookie(_ name: String, _ value: String) {
        lock.withLock {
            jar.removeAll { $0.name == name }
            jar.append((name, value))
        }
    }

    public func removeCookies() { lock.withLock { jar.removeAll() } }

    /// Keeps what a `Set-Cookie` says: a value, or its removal (`Max-Age` of 0 or less, or an empty value).
    func remember(setCookie line: String) {
        let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        let removed =
            value.isEmpty
            || parts.dropFirst().contains {
                $0.lowercased().hasPrefix("max-age=") && (Int($0.dropFirst("max-age=".count)) ?? 1) <= 0
            }
        lock.withLock {
            jar.removeAll { $0.name == name }
            if !removed { jar.append((name, value)) }
        }
    }

    // MARK: Wire

    private func exchange(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) throws
        -> HTTPResponse
    {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !headers.contains(where: { $0.0.lowercased() == "cookie" }) {
            let cookies = lock.withLock { jar.map { "\($0.name)=\($0.value)" } }
            if !cookies.isEmpty { head += "Cookie: \(cookies.joined(separator: "; "))\r\n" }
        }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        // A kept-alive connection the server has since closed fails at once: open a new one, once.
        let reused = socket >= 0
        do {
            return try attempt(request, method: method)
        } catch let closed as ClosedEarly where reused {
            _ = closed
            closeConnection()
            return try attempt(request, method: method)
        }
    }

    private struct ClosedEarly: Error {}

    private func attempt(_ request: [UInt8], method: String) throws -> HTTPResponse {
        if socket < 0 { try connect() }
        guard sendAll(request) else {
            closeConnection()
            throw ClosedEarly()
        }
        let response = try readResponse(method: method)
        for header in response.headerList where header.name.lowercased() == "set-cookie" {
            remember(setCookie: header.value)
        }
        if response.headers["connection"]?.lowercased() == "close" { closeConnection() }
        return response
    }

    private func connect() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestFailure("connect to \(host):\(port): errno \(code)")
        }
        socket = fd
        buffer = []
    }

    public func closeConnection() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        buffer = []
    }

    private func sendAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return false }
            throw TestFailure("recv from \(host):\(port): errno \(errno)")
        }
    }

    private func readResponse(method: String) throws -> HTTPResponse {
        var headEnd: Int?
        var searched = 0
        while headEnd == nil {
            if buffer.count >= 4 {
                headEnd = (max(0, searched - 3)...(buffer.count - 4)).first {
                    buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
                }
                searched = buffer.count
            }
            if headEnd == nil, try !fill() {
                let nothing = buffer.isEmpty
                closeConnection()
                if nothing { throw ClosedEarly() }
                throw TestFailure("connection closed inside a response head")
            }
        }
        guard let end = headEnd else { throw TestFailure("no response head") }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestFailure("bad status line in \(head)")
        }
        let headerList = lines.compactMap { line -> HTTPResponse.Header? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPResponse.Header(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let partial = HTTPResponse(status: status, headerList: headerList, bytes: [])
        if (100..<200).contains(status) { return try readResponse(method: method) }
        if method == "HEAD" || status == 204 || status == 304 { return partial }
        let fields = partial.headers
        var body: [UInt8] = []
        if fields["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try readChunked()
        } else if let length = fields["content-length"].flatMap({ Int($0) }) {
            while buffer.count < length {
                guard try fill() else { throw TestFailure("connection closed inside a body") }
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            body = buffer
            closeConnection()
        }
        return HTTPResponse(status: status, headerList: headerList, bytes: body)
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[0..<index], as: UTF8.self)
                buffer.removeFirst(index + 2)
                return line
            }
            guard try fill() else { throw TestFailure("connection closed inside a chunked body") }
        }
    }

    private func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
                throw TestFailure("bad chunk size \(sizeLine)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            while buffer.count < size + 2 {
                guard try fill() else { throw TestFailure("connection closed inside a chunk") }
            }
            body += buffer[0..<size]
            buffer.removeFirst(size + 2)
        }
    }
}
