// HTTPServer: a thin Swift skin on libmicrohttpd (request, response, router, cookies, multipart
// streamed to disk, static files). No business logic lives here.

/// Header fields of a request or a response, looked up without regard to case.
///
/// A request's fields are kept as MHD gave them, as bytes (`received`): a String is made only for a
/// value that is looked up, and names are compared as bytes. Building two Strings for every field of
/// every request was ~8,600 instructions of each (callgrind), most of them for fields nobody reads.
public struct Headers: Sendable, Sequence {
    /// The received fields' bytes, name then value, one after the other, and where each one is.
    private var bytes: [UInt8] = []
    private var spans: [Span] = []
    /// Fields given as Strings (a response's, or ones added to a request's), after the received ones.
    private var added: [(name: String, value: String)]

    private struct Span: Sendable {
        var nameStart: Int
        var valueStart: Int
        var valueEnd: Int
    }

    public init(_ fields: [(name: String, value: String)] = []) { added = fields }

    /// No fields yet, with room for `capacity` received ones.
    init(capacity: Int) {
        added = []
        spans.reserveCapacity(capacity)
        // Under glibc's largest per-thread cached size (1,032 bytes with the array's header): 1,024
        // bytes here went to malloc's slower bins, ~2,000 instructions more per request (callgrind).
        bytes.reserveCapacity(capacity * 32)
    }

    /// Every field, in order, as Strings.
    public var fields: [(name: String, value: String)] {
        guard !spans.isEmpty else { return added }
        var all: [(name: String, value: String)] = []
        all.reserveCapacity(spans.count + added.count)
        for index in spans.indices { all.append((receivedName(index), receivedValue(index))) }
        all.append(contentsOf: added)
        return all
    }

    /// How many fields there are.
    var count: Int { spans.count + added.count }

    /// The first value of a header, or nil.
    public subscript(_ name: String) -> String? {
        if let index = firstReceived(name, from: 0) { return receivedValue(index) }
        return added.first { Headers.namesEqual($0.name, name) }?.value
    }

    /// Whether any field's name begins with one of `letters` (ASCII bytes): lets a caller that looks
    /// for several names skip the lookups.
    func anyName(startingWith letters: StaticString) -> Bool {
        let wanted = UnsafeBufferPointer(start: letters.utf8Start, count: letters.utf8CodeUnitCount)
        for span in spans where span.valueStart > span.nameStart && wanted.contains(bytes[span.nameStart]) {
            return true
        }
        return added.contains { field in field.name.utf8.first.map { wanted.contains($0) } ?? false }
    }

    /// Every value of a header, in order (a proxy may add its own field rather than extend one).
    func values(_ name: String) -> [String] {
        var found: [String] = []
        var next = firstReceived(name, from: 0)
        while let index = next {
            found.append(receivedValue(index))
            next = firstReceived(name, from: index + 1)
        }
        for field in added where Headers.namesEqual(field.name, name) { found.append(field.value) }
        return found
    }

    /// Header names compared without regard to ASCII case, byte by byte: lowercasing both sides
    /// allocated two Strings per field on every lookup (several lookups per request).
    static func namesEqual(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        return left.utf8.elementsEqual(right.utf8) { a, b in Headers.sameLetter(a, b) }
    }

    @inline(__always)
    private static func sameLetter(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }

    public mutating func add(_ name: String, _ value: String) { added.append((name, value)) }

    /// Adds a field as received, from its bytes (the header collector).
    mutating func addReceived(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        // As typed buffers: appending the raw buffers went byte by byte, not through memcpy.
        let nameStart = bytes.count
        bytes.append(contentsOf: name.assumingMemoryBound(to: UInt8.self))
        let valueStart = bytes.count
        bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
        spans.append(Span(nameStart: nameStart, valueStart: valueStart, valueEnd: bytes.count))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// The first received field at or after `start` whose name is `name`, in any ASCII case.
    private func firstReceived(_ name: String, from start: Int) -> Int? {
        guard start < spans.count else { return nil }
        if let found = name.utf8.withContiguousStorageIfAvailable({ firstReceived($0, from: start) }) { return found }
        return Array(name.utf8).withUnsafeBufferPointer { firstReceived($0, from: start) }
    }

    private func firstReceived(_ key: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { all in
            spans.withUnsafeBufferPointer { spans in
                for index in start..<spans.count where Headers.isNamed(spans[index], key, in: all) { return index }
                return nil
            }
        }
    }

    /// Whether the received field at `span` (in `all`, the received bytes) is named `key`, in any ASCII case.
    @inline(__always)
    private static func isNamed(_ span: Span, _ key: UnsafeBufferPointer<UInt8>, in all: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard span.valueStart - span.nameStart == key.count else { return false }
        var offset = 0
        while offset < key.count, sameLetter(all[span.nameStart + offset], key[offset]) { offset += 1 }
        return offset == key.count
    }

    /// Host, Content-Length and Transfer-Encoding in one pass (`RequestFraming.checkFields`): how many
    /// of the first two there are and their last values, and every Transfer-Encoding value.
    func framingFields() -> (hosts: Int, host: String?, lengths: Int, length: String?, codings: [String]) {
        var hosts = 0
        var host: Int?
        var lengths = 0
        var length: Int?
        var codings: [String] = []
        bytes.withUnsafeBufferPointer { all in
            func named(_ span: Span, _ key: StaticString) -> Bool {
                Headers.isNamed(span, UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), in: all)
            }
            for index in spans.indices {
                let span = spans[index]
                switch span.valueStart - span.nameStart {
                case 4 where named(span, "Host"):
                    hosts += 1
                    host = index
                case 14 where named(span, "Content-Length"):
                    lengths += 1
                    length = index
                case 17 where named(span, "Transfer-Encoding"):
                    codings.append(receivedValue(index))
                default:
                    continue
                }
            }
        }
        var hostValue = host.map(receivedValue)
        var lengthValue = length.map(receivedValue)
        for (name, value) in added {
            if Headers.namesEqual(name, "Host") {
                hosts += 1
                hostValue = value
            } else if Headers.namesEqual(name, "Content-Length") {
                lengths += 1
                lengthValue = value
            } else if Headers.namesEqual(name, "Transfer-Encoding") {
                codings.append(value)
            }
        }
        return (hosts, hostValue, lengths, lengthValue, codings)
    }

    private func receivedName(_ index: Int) -> String {
        String(decoding: bytes[spans[index].nameStart..<spans[index].valueStart], as: UTF8.self)
    }

    private func receivedValue(_ index: Int) -> String {
        String(decoding: bytes[spans[index].valueStart..<spans[index].valueEnd], as: UTF8.self)
    }
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
    /// The Cookie field as received (nil without one): read by `cookie(_:)` and `cookies`.
    public let cookieHeader: String?
    /// Every well-formed cookie, the first of a name winning (`Decoding.cookies`). A handler that reads
    /// one or two cookies asks `cookie(_:)`, which makes no dictionary.
    public var cookies: [String: String] { Decoding.cookies(cookieHeader) }
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
    public var parameters: PathParameters

    public init(
        method: String, path: String, rawPath: String? = nil, query: [(name: String, value: String)] = [],
        headers: Headers = Headers(), remoteAddress: String = "127.0.0.1",
        formFields: [(name: String, value: String)] = [], files: [UploadedFile] = [], body: [UInt8] = [],
        rawBodyPath: String? = nil, parameters: PathParameters = [:], peerAddress: String? = nil
    ) {
        self.peerAddress = peerAddress ?? remoteAddress
        self.method = method
        self.path = path
        self.rawPath = rawPath ?? path
        self.query = query
        self.headers = headers
        self.cookieHeader = headers["Cookie"]
        self.remoteAddress = remoteAddress
        self.formFields = formFields
        self.files = files
        self.body = body
        self.rawBodyPath = rawBodyPath
        self.parameters = parameters
    }

    /// The value of the first well-formed cookie of that name (`Decoding.cookie`).
    public func cookie(_ name: String) -> String? { Decoding.cookie(name, in: cookieHeader) }

    /// The first form field of that name.
    public func formValue(_ name: String) -> String? { formFields.first { $0.name == name }?.value }
    /// The first query argument of that name.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}
