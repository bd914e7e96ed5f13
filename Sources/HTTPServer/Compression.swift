// Compression of responses: gzip (zlib) for pages and JSON built per request, gzip and
// brotli for static assets (compressed once, see StaticFiles). The encoders are one-shot: every body
// here is already whole in memory. Accept-Encoding is negotiated as RFC 9110 §12.5.3 says (q-values,
// "*", q=0 refuses); a representation in another coding gets its own ETag (§8.8.3: entity tags differ
// between encodings) and every response that could have been encoded says `Vary: Accept-Encoding`.
import CBrotli
import CZlib
import Glibc

/// A content coding this server can produce (RFC 9110 §8.4.1).
public enum ContentCoding: String, Sendable, CaseIterable {
    case identity
    case gzip
    case br

    /// The ETag of this coding's representation, from the identity one's: `"abc"` → `"abc-gzip"`,
    /// weak tags keep their `W/`.
    public func tag(from identityTag: String) -> String {
        guard self != .identity, identityTag.hasSuffix("\"") else { return identityTag }
        return String(identityTag.dropLast()) + "-" + rawValue + "\""
    }
}

public enum Compression {
    /// Bodies smaller than this go as they are: the gzip header and trailer (18 bytes) and the
    /// deflate block overhead eat most of what a small body would save.
    public static let minimumBytes = 1024

    /// gzip (RFC 1952) of `bytes`; `level` 1 (fastest) to 9 (smallest). Nil if zlib fails.
    public static func gzip(_ bytes: [UInt8], level: Int32) -> [UInt8]? {
        var stream = z_stream()
        guard har_deflate_init_gzip(&stream, max(1, min(9, level))) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        let (output, status) = deflateOnce(&stream, bytes, capacity: bound, flush: Z_FINISH)
        return status == Z_STREAM_END ? output : nil
    }

    /// One `deflate` call over all of `bytes` into a buffer of `capacity` bytes: what it wrote, and
    /// zlib's status (`Z_STREAM_END` after `Z_FINISH`, `Z_OK` after a flush). A caller that flushes
    /// checks `stream.avail_in == 0` and `stream.avail_out > 0` too: the buffer held everything.
    public static func deflateOnce(_ stream: inout z_stream, _ bytes: [UInt8], capacity: Int, flush: Int32) -> (
        output: [UInt8], status: Int32
    ) {
        var status: Int32 = Z_STREAM_ERROR
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
            bytes.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                status = deflate(&stream, flush)
            }
            count = status == Z_OK || status == Z_STREAM_END ? out.count - Int(stream.avail_out) : 0
        }
        return (fitted(output), status)
    }

    /// `bytes` in an allocation of about their own size. An encoder writes into a buffer of its worst
    /// case, about the input's size: kept as it is, a 61 KB page compressed to 8 KB would hold 61 KB
    /// for as long as it is kept (the static files' forms, the kept list's parts), and bounds counted
    /// in bytes written would be off by the ratio. A copy when that saves more than an eighth.
    public static func fitted(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.capacity - bytes.count > max(512, bytes.count / 8) else { return bytes }
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
            count = bytes.withUnsafeBufferPointer { out.initialize(fromContentsOf: $0) }
        }
    }

    /// The bytes inside a gzip member, at most `limit` of them; nil if it is not valid gzip or larger.
    public static func gunzip(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard har_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                if status == Z_STREAM_END { return output }
                guard status == Z_OK, produced > 0 || stream.avail_in > 0 else { return nil }
            }
        }
    }

    /// Brotli (RFC 7932) of `bytes` at `quality` 0…11 (11: smallest, slowest; fine for files compressed
    /// once). Nil if the encoder fails.
    public static func brotli(_ bytes: [UInt8], quality: Int32 = 11) -> [UInt8]? {
        let bound = BrotliEncoderMaxCompressedSize(bytes.count)
        guard bound > 0 else { return nil }
        // The smallest window that holds the input ((1 << bits) - 16 bytes, 10 to 24 bits): the same
        // output for a file that fits, and quality 11's working memory follows the window (at the
        // default 22 bits, compressing the static files at start raised the peak RSS by ~35 MB).
        var windowBits: Int32 = 10
        while windowBits < 24 && (1 << windowBits) - 16 < bytes.count { windowBits += 1 }
        var ok = false
        let output = [UInt8](unsafeUninitializedCapacity: bound) { out, count in
            var size = out.count
            ok =
                bytes.withUnsafeBufferPointer { input in
                    BrotliEncoderCompress(
                        max(0, min(11, quality)), windowBits, BROTLI_MODE_TEXT, input.count, input.baseAddress, &size,
                        out.baseAddress)
                } == 1
            count = ok ? size : 0
        }
        return ok ? fitted(output) : nil
    }

    /// The bytes inside a brotli stream of at most `limit` bytes; nil otherwise. For tests and checks.
    public static func unbrotli(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var ok = false
        let output = [UInt8](unsafeUninitializedCapacity: limit) { out, count in
            var size = out.count
            ok =
                bytes.withUnsafeBufferPointer { input in
                    BrotliDecoderDecompress(input.count, input.baseAddress, &size, out.baseAddress)
                } == BROTLI_DECODER_RESULT_SUCCESS
            count = ok ? size : 0
        }
        return ok ? output : nil
    }

    /// Media types worth compressing: text, JSON, JavaScript, SVG. Never images, photos or fonts
    /// (already compressed: a second pass costs CPU and saves nothing).
    ///
    /// On the bytes, ASCII case folded in place: asked for every page (its `Vary`), where splitting
    /// and lower-casing the String cost ~8,000 instructions (callgrind, the rows page).
    static func isCompressible(contentType: String) -> Bool {
        var contentType = contentType
        return contentType.withUTF8 { bytes in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            let type = UnsafeBufferPointer(rebasing: bytes[start..<end])
            func matches(_ text: StaticString, at offset: Int) -> Bool {
                let count = text.utf8CodeUnitCount
                guard offset >= 0, offset + count <= type.count else { return false }
                let pattern = text.utf8Start
                for index in 0..<count {
                    let byte = type[offset + index]
                    let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                    if folded != pattern[index] { return false }
                }
                return true
            }
            func isExactly(_ text: StaticString) -> Bool {
                type.count == text.utf8CodeUnitCount && matches(text, at: 0)
            }
            return matches("text/", at: 0) || isExactly("application/json") || matches("+json", at: type.count - 5)
                || isExactly("application/javascript") || isExactly("image/svg+xml")
        }
    }
}

/// Accept-Encoding (RFC 9110 §12.5.3): which of the codings on offer the client prefers.
public enum AcceptEncoding {
    /// The coding with the highest q-value among `offered` (ties: the earlier in `offered`), or
    /// identity when none is acceptable or the header is absent.
    public static func choose(_ header: String?, offered: [ContentCoding]) -> ContentCoding {
        guard let header, !header.isEmpty else { return .identity }
        var best = ContentCoding.identity
        var bestWeight = 0.0
        for coding in offered where coding != .identity {
            let weight = self.weight(of: coding.rawValue, in: header)
            if weight > bestWeight {
                best = coding
                bestWeight = weight
            }
        }
        return best
    }

    /// True when `header` accepts `coding` with a non-zero q-value.
    public static func accepts(_ header: String?, _ coding: ContentCoding) -> Bool {
        guard let header else { return false }
        return weight(of: coding.rawValue, in: header) > 0
    }

    /// The q-value the header gives `name` itself, else "*"'s, else 0. "x-gzip" counts as gzip (§8.4.1.3).
    static func weight(of name: String, in header: String) -> Double {
        var star: Double?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let first = parts.first else { continue }
            let coding = first.trimmingSpaces.lowercased()
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpaces.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].lowercased() == "q", let value = Double(pair[1].trimmingSpaces) {
                    weight = max(0, min(1, value))
                }
            }
            if coding == name || (name == "gzip" && coding == "x-gzip") { return weight }
            if coding == "*" { star = weight }
        }
        return star ?? 0
    }
}

extension Headers {
    /// Replaces every field named `name` by one with `value` (or appends it).
    public mutating func set(_ name: String, _ value: String) {
        var replaced = false
        var kept: [(name: String, value: String)] = []
        kept.reserveCapacity(fields.count + 1)
        for field in fields {
            if Headers.namesEqual(field.name, name) {
                if !replaced { kept.append((field.name, value)) }
                replaced = true
            } else {
                kept.append(field)
            }
        }
        if !replaced { kept.append((name, value)) }
        self = Headers(kept)
    }

    /// Adds `Accept-Encoding` to Vary, keeping what it already names.
    mutating func addVaryAcceptEncoding() {
        guard let vary = self["Vary"] else {
            add("Vary", "Accept-Encoding")
            return
        }
        let names = vary.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
        if names.contains("accept-encoding") || names.contains("*") { return }
        set("Vary", vary + ", Accept-Encoding")
    }
}

extension Request {
    /// A 304 for a handler's own strong validator `tag` (of the identity representation) when the
    /// request's If-None-Match names it, or names its gzip variant and the client takes gzip: the
    /// server may have sent either, depending on the body's size. The 304 repeats the tag the client
    /// holds, `Vary: Accept-Encoding` and `headers` (Cache-Control). Nil: answer in full.
    public func notModified(tag: String, headers: Headers = Headers()) -> Response? {
        guard method == "GET" || method == "HEAD", let condition = self.headers["If-None-Match"] else { return nil }
        var matched: String?
        // The tag a client sends back is most often exactly the one it holds: compared as bytes first
        // (parsing the list cost a tenth of a 304's instructions).
        if Self.sameBytes(condition, tag) || Conditional.noneMatchFails(condition, tag: tag) {
            matched = tag
        } else if AcceptEncoding.accepts(self.headers["Accept-Encoding"], .gzip),
            Conditional.noneMatchFails(condition, tag: ContentCoding.gzip.tag(from: tag))
        {
            matched = ContentCoding.gzip.tag(from: tag)
        }
        guard let matched else { return nil }
        var answer = Response(status: 304, headers: headers)
        answer.headers.add("ETag", matched)
        answer.headers.addVaryAcceptEncoding()
        return answer
    }

    /// The same UTF-8 bytes (not `==`, which compares canonical equivalence). Over both Strings' own
    /// storage when they have it: the generic `elementsEqual` over the UTF-8 views was ~2,400
    /// instructions of a 304 for a 40-byte tag (callgrind).
    static func sameBytes(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        let contiguous = left.utf8.withContiguousStorageIfAvailable { leftBytes in
            right.utf8.withContiguousStorageIfAvailable { rightBytes in
                guard let leftBase = leftBytes.baseAddress, let rightBase = rightBytes.baseAddress else { return true }
                return memcmp(leftBase, rightBase, leftBytes.count) == 0
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return left.utf8.elementsEqual(right.utf8)
    }
}

extension HTTPServer {
    /// gzip for a response built per request (pages, JSON) when it is worth it: a body of at least
    /// `Compression.minimumBytes` of a compressible type, not already encoded, not a partial or
    /// bodiless answer, and a client that takes gzip. Such responses say `Vary: Accept-Encoding` whether
    /// or not this client got gzip; the gzip one's ETag becomes the gzip variant of the handler's.
    func compressed(_ response: Response, acceptEncoding: String?) -> Response {
        let level = configuration.gzipLevel
        guard level > 0, response.reusable == nil, (200...599).contains(response.status),
            response.status != 204, response.status != 206, response.status != 304,
            let count = Self.byteCount(response.body), count >= Compression.minimumBytes,
            response.headers["Content-Encoding"] == nil,
            let contentType = response.headers["Content-Type"], Compression.isCompressible(contentType: contentType)
        else { return response }
        var result = response
        result.headers.addVaryAcceptEncoding()
        guard AcceptEncoding.accepts(acceptEncoding, .gzip) else { return result }
        // Pieces are joined only here, for a client that takes gzip: the kept list sends its own gzip
        // parts then, so this is the page's rare case (compression turned on after it was kept).
        let body: [UInt8]
        switch response.body {
        case .bytes(let bytes): body = bytes
        case .pieces(let pieces): body = pieces.joined()
        case .file: return result
        }
        guard let gzipped = Compression.gzip(body, level: level), gzipped.count < body.count else { return result }
        result.body = .bytes(gzipped)
        result.headers.add("Content-Encoding", "gzip")
        if let tag = result.headers["ETag"] { result.headers.set("ETag", ContentCoding.gzip.tag(from: tag)) }
        return result
    }

    /// The length of a body built in memory; nil for a file.
    static func byteCount(_ body: Response.Body) -> Int? {
        switch body {
        case .bytes(let bytes): bytes.count
        case .pieces(let pieces): pieces.count
        case .file: nil
        }
    }
}
