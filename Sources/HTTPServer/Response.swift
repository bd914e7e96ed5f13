/// One HTTP response. The server adds the security headers to every response.
public struct Response: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// A file streamed from disk; `size` bytes from its start.
        case file(path: String, size: Int)
        /// Bytes in pieces, sent from where they are (`MHD_create_response_from_iovec`), never joined
        /// into one array: a kept page with its CSRF token spliced in per response.
        case pieces(ResponsePieces)
    }

    public var status: Int
    public var headers: Headers
    public var body: Body
    /// Close the connection and send nothing: for fault injection (a request processed, its answer
    /// lost on the way). Never for ordinary errors, which deserve an answer.
    public var closesConnectionWithoutAnswer = false
    /// Set by the server's static files: this exact response (status, headers, body) goes out again
    /// for as long as the file is unchanged, so the finished MHD response is kept and queued again.
    var reusable: ReusableResponse?
    /// Where a `.file` body starts in its file (a 206 answer to a Range request).
    var fileOffset = 0
    /// A `.file` body written for this one answer (an export): the server removes the file as soon as
    /// it has opened it to send it, so its bytes last as long as the answer, and no longer.
    public var removesFileOnceOpened = false

    /// A response that is never sent: the connection is closed instead.
    public static var connectionDropped: Response {
        var response = Response(status: 500)
        response.closesConnectionWithoutAnswer = true
        return response
    }

    public init(status: Int = 200, headers: Headers = Headers(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String, body: [UInt8]) {
        self.init(status: status, headers: Headers([("Content-Type", contentType)]), body: .bytes(body))
    }

    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    public static func html(_ html: String, status: Int = 200) -> Response {
        Response(status: status, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    public static func json(_ bytes: [UInt8], status: Int = 200) -> Response {
        Response(status: status, contentType: "application/json", body: bytes)
    }

    public static func redirect(to location: String, status: Int = 303) -> Response {
        Response(status: status, headers: Headers([("Location", location)]))
    }

    /// Adds a Set-Cookie header.
    public mutating func setCookie(_ cookie: SetCookie) { headers.add("Set-Cookie", cookie.headerValue) }
}

/// A body made of `parts` with `joiner` between each two, as `parts.joined(separator: joiner)` would
/// be, without making that array: the server hands MHD the pieces where they are, so a 61 KB kept
/// page costs no copy and no allocation of its size per response (`ReportListScreen`, docs/WEB.md).
public struct ResponsePieces: Sendable {
    public let parts: [[UInt8]]
    public let joiner: [UInt8]
    /// The body's length.
    public let count: Int

    public init(parts: [[UInt8]], joiner: [UInt8]) {
        self.parts = parts
        self.joiner = joiner
        count = parts.reduce(0) { $0 + $1.count } + joiner.count * max(0, parts.count - 1)
    }

    /// The whole body in one array (for gzip per response, a range, a test).
    public func joined() -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(count)
        for (index, part) in parts.enumerated() {
            if index > 0 { body.append(contentsOf: joiner) }
            body.append(contentsOf: part)
        }
        return body
    }
}
