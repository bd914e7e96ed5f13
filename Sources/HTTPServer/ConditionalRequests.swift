// Conditional and partial GETs of a file (RFC 9110 §13 and §14): If-Match and If-Unmodified-Since
// (412), If-None-Match (weak comparison, lists, "*"), If-Modified-Since, Range (one byte range) and
// If-Range. Static files use it with their
// cached validators; handlers that answer with a file (photos) call `ConditionalFile.respond`.
import Glibc

/// The request fields that can change a GET of a file (the first of each): most requests have none.
struct ConditionalHeaders {
    var ifMatch: String?
    var ifUnmodifiedSince: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?
    var range: String?
    var ifRange: String?

    init(_ headers: Headers) {
        // Looked up by name, when any name could be one of them: most requests have none.
        guard headers.anyName(startingWith: "iIrR") else { return }
        ifNoneMatch = headers["If-None-Match"]
        ifModifiedSince = headers["If-Modified-Since"]
        range = headers["Range"]
        ifRange = headers["If-Range"]
        ifMatch = headers["If-Match"]
        ifUnmodifiedSince = headers["If-Unmodified-Since"]
    }

    var isEmpty: Bool {
        ifNoneMatch == nil && ifModifiedSince == nil && range == nil && ifMatch == nil && ifUnmodifiedSince == nil
    }
}

enum Conditional {
    enum Outcome: Equatable {
        case full
        case notModified
        case preconditionFailed
        case partial(offset: Int, length: Int)
        case unsatisfiable
    }

    /// RFC 9110 §13.2.2's order for GET and HEAD: If-Match, else If-Unmodified-Since (412 when false);
    /// If-None-Match, else If-Modified-Since (304 when false); then Range (GET only, §14.2), unless
    /// If-Range names another version.
    static func evaluate(
        _ conditions: ConditionalHeaders, method: String, tag: String, lastModified: Int, size: Int
    ) -> Outcome {
        guard method == "GET" || method == "HEAD" else { return .full }
        if let condition = conditions.ifMatch {
            if !matchesStrongly(condition, tag: tag) { return .preconditionFailed }
        } else if let since = conditions.ifUnmodifiedSince, let date = HTTPDate.parse(since), lastModified > date {
            return .preconditionFailed
        }
        if let condition = conditions.ifNoneMatch {
            if noneMatchFails(condition, tag: tag) { return .notModified }
        } else if let since = conditions.ifModifiedSince, let date = HTTPDate.parse(since), lastModified <= date {
            return .notModified
        }
        guard method == "GET", let range = conditions.range else { return .full }
        if let ifRange = conditions.ifRange, !ifRangeMatches(ifRange, tag: tag, lastModified: lastModified) {
            return .full
        }
        return byteRange(range, size: size) ?? .full
    }

    /// If-None-Match is false ("not modified") when any listed tag matches weakly, or it is "*".
    static func noneMatchFails(_ condition: String, tag: String) -> Bool {
        let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
        for item in condition.split(separator: ",") {
            var trimmed = item
            while trimmed.first == " " || trimmed.first == "\t" { trimmed = trimmed.dropFirst() }
            while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
            if trimmed == "*" { return true }
            if trimmed.hasPrefix("W/") { trimmed = trimmed.dropFirst(2) }
            if trimmed == opaque { return true }
        }
        return false
    }

    /// If-Match is true when any listed tag matches strongly (never a weak one), or it is "*".
    static func matchesStrongly(_ condition: String, tag: String) -> Bool {
        guard !tag.hasPrefix("W/") else { return condition.trimmingSpaces == "*" }
        for item in condition.split(separator: ",") where item.trimmingSpaces == "*" || item.trimmingSpaces == tag {
            return true
        }
        return false
    }

    /// If-Range: a strong match of the entity tag (never a weak one), or exactly the Last-Modified date.
    static func ifRangeMatches(_ condition: String, tag: String, lastModified: Int) -> Bool {
        if condition.hasPrefix("\"") { return !tag.hasPrefix("W/") && condition == tag }
        if condition.hasPrefix("W/") { return false }
        return HTTPDate.parse(condition) == lastModified
    }

    /// One range of bytes (§14.1.2): "first-last", "first-", "-suffix". Nil (serve it all) for other
    /// units, several ranges or a malformed one; `.unsatisfiable` when it starts past the end.
    static func byteRange(_ value: String, size: Int) -> Outcome? {
        let bytes = Array(value.utf8)
        guard bytes.count > 6, bytes[0..<6].map({ $0 | 0x20 }).elementsEqual("bytes=".utf8) else { return nil }
        var spec = bytes[6...]
        while spec.first == UInt8(ascii: " ") { spec = spec.dropFirst() }
        while spec.last == UInt8(ascii: " ") { spec = spec.dropLast() }
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let first = number(spec[spec.startIndex..<dash])
        let last = number(spec[(dash + 1)...])
        let firstEmpty = dash == spec.startIndex
        let lastEmpty = dash + 1 == spec.endIndex
        if firstEmpty {
            guard let suffix = last, !lastEmpty else { return nil }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            let length = min(suffix, size)
            return .partial(offset: size - length, length: length)
        }
        guard let first else { return nil }
        if lastEmpty {
            return first < size ? .partial(offset: first, length: size - first) : .unsatisfiable
        }
        guard let last, last >= first else { return nil }
        guard first < size else { return .unsatisfiable }
        return .partial(offset: first, length: min(last, size - 1) - first + 1)
    }

    /// 1*DIGIT that fits an Int; nil otherwise (a list's comma lands here too).
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// The ETag of a file version: size and modification time, as static files have always used.
    static func tag(size: Int, mtimeSeconds: Int, mtimeNanoseconds: Int) -> String {
        "\"\(String(size, radix: 16))-\(String(mtimeSeconds, radix: 16))\(String(mtimeNanoseconds, radix: 16))\""
    }
}

/// Conditional and range answers for handlers that serve a file.
public enum ConditionalFile {
    /// Fields a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5).
    static let notModifiedFields = ["ETag", "Cache-Control", "Vary", "Expires", "Content-Location"]

    /// For a 200 whose body is `.file`: adds ETag, Last-Modified and Accept-Ranges from the file as it
    /// is now, and answers If-None-Match / If-Modified-Since with 304 (keeping ETag, Cache-Control and
    /// Vary), Range with 206 and Content-Range (If-Range respected), an unsatisfiable range with 416.
    /// Any other response comes back unchanged.
    public static func respond(to request: Request, with response: Response) -> Response {
        guard response.status == 200, case .file(let path, _) = response.body else { return response }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return response }
        let size = Int(info.st_size)
        let tag = Conditional.tag(
            size: size, mtimeSeconds: info.st_mtim.tv_sec, mtimeNanoseconds: info.st_mtim.tv_nsec)
        var full = response
        full.body = .file(path: path, size: size)
        full.headers.add("ETag", tag)
        full.headers.add("Last-Modified", HTTPDate.format(info.st_mtim.tv_sec))
        full.headers.add("Accept-Ranges", "bytes")
        let conditions = ConditionalHeaders(request.headers)
        if conditions.isEmpty { return full }
        let outcome = Conditional.evaluate(
            conditions, method: request.method, tag: tag, lastModified: info.st_mtim.tv_sec, size: size)
        return answer(outcome, full: full, size: size)
    }

    /// The response for an outcome, built from the full 200.
    static func answer(_ outcome: Conditional.Outcome, full: Response, size: Int) -> Response {
        switch outcome {
        case .full:
            return full
        case .notModified:
            var headers = Headers()
            for (name, value) in full.headers
            where notModifiedFields.contains(where: { Headers.namesEqual($0, name) }) {
                headers.add(name, value)
            }
            return Response(status: 304, headers: headers)
        case .partial(let offset, let length):
            var partial = full
            partial.status = 206
            partial.headers.add("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(size)")
            switch full.body {
            case .bytes(let content):
                partial.body = .bytes(Array(content[offset..<(offset + length)]))
            case .pieces(let pieces):
                partial.body = .bytes(Array(pieces.joined()[offset..<(offset + length)]))
            case .file(let path, _):
                partial.body = .file(path: path, size: length)
                partial.fileOffset = offset
            }
            return partial
        case .unsatisfiable:
            return Response(status: 416, headers: Headers([("Content-Range", "bytes */\(size)")]))
        case .preconditionFailed:
            return Response(status: 412)
        }
    }
}

/// HTTP-date (RFC 9110 §5.6.7): IMF-fixdate out; all three formats in, as a recipient must accept.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sun, 06 Nov 1994 08:49:37 GMT"
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since 1970 for an IMF-fixdate, an RFC 850 date or an asctime date; nil for anything else.
    static func parse(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == ":" })
        var day: Int?
        var month: Int?
        var year: Int?
        var clock: [Int] = []
        switch words.count {
        case 8 where words[7] == "GMT":
            // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" or RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT"
            day = Int(words[1])
            month = months.firstIndex(of: String(words[2]))
            year = Int(words[3]).map { words[3].count == 2 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            clock = words[4...6].compactMap { Int($0) }
        case 7:
            // asctime "Sun Nov  6 08:49:37 1994"
            month = months.firstIndex(of: String(words[1]))
            day = Int(words[2])
            clock = words[3...5].compactMap { Int($0) }
            year = Int(words[6])
        default:
            return nil
        }
        guard let day, let month, let year, clock.count == 3, (1...31).contains(day), (1900...9999).contains(year),
            (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(clock[0])
        parts.tm_min = Int32(clock[1])
        parts.tm_sec = Int32(clock[2])
        return Int(timegm(&parts))
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (list elements, RFC 9110 §5.6.1).
    var trimmingSpaces: SubSequence {
        var trimmed = self[...]
        while trimmed.first == " " || trimmed.first == "\t" { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
