// HTTPServer: a thin Swift skin on libmicrohttpd (request, response, router, cookies, multipart
// streamed to disk, static files). No business logic lives here.

/// Header fields of a request, looked up without regard to case.
public struct Headers: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    /// No fields yet, with room for `capacity` of them.
    init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// The first value of a header, or nil.
    public subscript(_ name: String) -> String? {
        fields.first { Headers.namesEqual($0.name, name) }?.value
    }

    /// Header names compared without regard to ASCII case, byte by byte: lowercasing both sides
    /// allocated two Strings per field on every lookup (several lookups per request).
    static func namesEqual(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        return left.utf8.elementsEqual(right.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

/// A file part of a multipart body, already streamed to a temporary file under the data folder.
/// The file is removed when the request completes unless the handler moved it elsewhere.
public struct UploadedFile: Sendable {
    public var fieldName: String
    public var fileName: String?
    public var contentType: String?
    public var path: String
    public var size: Int

    public init(fieldName: String, fileName: String?, contentType: String?, path: String, size: Int) {
        self.fieldName = fieldName
        self.fileName = fileName
        self.contentType = contentType
        self.path = path
        self.size = size
    }
}

/// One HTTP request, complete (its body has been received) when a responder sees it.
public struct Request: Sendable {
    public var method: String
    /// The percent-decoded path, without the query string.
    public var path: String
    /// The path as it came on the request line, without the query string.
    public var rawPath: String
    /// Query arguments, percent-decoded, in order.
    public var query: [(name: String, value: String)]
    public var headers: Headers
    public var cookies: [String: String]
    /// The client's IP address as text ("127.0.0.1", "::1"): the peer's, or, when the peer is a trusted
    /// proxy, the one its forwarding fields name (`TrustedProxies`). For limits and logs.
    public var remoteAddress: String
    /// The address at the other end of the TCP connection, whoever it is.
    public var peerAddress: String
    /// Whether the request came through a proxy: it carries a forwarding field (believed or not).
    public var isForwarded: Bool { headers["Forwarded"] != nil || headers["X-Forwarded-For"] != nil }
    /// Text fields of an urlencoded or multipart body, in order.
    public var formFields: [(name: String, value: String)]
    /// File parts of a multipart body.
    public var files: [UploadedFile]
    /// The body bytes when it is neither urlencoded nor multipart (JSON, for example); else empty.
    public var body: [UInt8]
    /// With `RouteOptions.spoolRawBody`, the whole body exactly as received, in a temporary file.
    public var rawBodyPath: String?
    /// Path parameters captured by the router (":id" in "/report/:id").
    public var parameters: [String: String]

    public init(
        method: String, path: String, rawPath: String? = nil, query: [(name: String, value: String)] = [],
        headers: Headers = Headers(), cookies: [String: String] = [:], remoteAddress: String = "127.0.0.1",
        formFields: [(name: String, value: String)] = [], files: [UploadedFile] = [], body: [UInt8] = [],
        rawBodyPath: String? = nil, parameters: [String: String] = [:], peerAddress: String? = nil
    ) {
        self.peerAddress = peerAddress ?? remoteAddress
        self.method = method
        self.path = path
        self.rawPath = rawPath ?? path
        self.query = query
        self.headers = headers
        self.cookies = cookies
        self.remoteAddress = remoteAddress
        self.formFields = formFields
        self.files = files
        self.body = body
        self.rawBodyPath = rawBodyPath
        self.parameters = parameters
    }

    /// The first form field of that name.
    public func formValue(_ name: String) -> String? { formFields.first { $0.name == name }?.value }
    /// The first query argument of that name.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}
