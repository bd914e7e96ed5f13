// Percent-decoding of the request line and parsing of the Cookie header. We decode the raw URI
// ourselves (MHD's copy arrives already unescaped, where "%2F" and "/" look alike and "%00" silently
// truncates the C string).

#if canImport(Glibc)
    import Glibc
#endif

enum Decoding {
    /// Bytes of `text` with "%HH" decoded (and "+" as space when asked); nil for a malformed escape.
    static func percentDecoded<S: Collection>(_ text: S, plusAsSpace: Bool) -> [UInt8]? where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                out.append(high << 4 | low)
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Valid UTF-8 without NUL, or nil.
    static func strictString(_ bytes: [UInt8]) -> String? {
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The decoded path, or nil when it must be refused with 400 (bad escape, NUL, invalid UTF-8).
    static func path(_ rawPath: String) -> String? {
        // The first byte: String.hasPrefix("/") is false for "/" followed by a combining mark.
        guard rawPath.utf8.first == UInt8(ascii: "/") else { return nil }
        // Nothing to decode (visible ASCII, no "%"): the path is its own decoding, valid and without
        // NUL, and is returned itself, its storage shared. Most requests; copying, decoding and
        // validating it were ~1,200 instructions of each.
        if rawPath.withUTF8Bytes({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") } }) {
            return rawPath
        }
        guard let bytes = percentDecoded(rawPath.utf8, plusAsSpace: false) else { return nil }
        return strictString(bytes)
    }

    /// "a=1&b=x+y" → [("a","1"),("b","x y")]; pairs that do not decode cleanly are left out.
    static func query(_ raw: Substring) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let nameBytes = percentDecoded(parts[0].utf8, plusAsSpace: true),
                let name = strictString(nameBytes), !name.isEmpty
            else { continue }
            var value = ""
            if parts.count > 1 {
                guard let valueBytes = percentDecoded(parts[1].utf8, plusAsSpace: true),
                    let decoded = strictString(valueBytes)
                else { continue }
                value = decoded
            }
            result.append((name, value))
        }
        return result
    }

    /// Cookie header → name/value pairs; the first of a name wins (the most specific path, by RFC 6265
    /// ordering). Names must be tokens; values lose surrounding quotes; anything with control characters
    /// is skipped rather than trusted. Only the first 64 well-formed items are read.
    static func cookies(_ header: String?) -> [String: String] {
        guard var header else { return [:] }
        var cookies: [String: String] = [:]
        header.withUTF8 { bytes in
            forEachCookie(bytes) { name, value in
                let nameText = String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self)
                if cookies[nameText] == nil {
                    cookies[nameText] = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                }
            }
        }
        return cookies
    }

    /// The value of the first well-formed cookie called `name`, found without making a dictionary or a
    /// String of any other cookie (the dictionary cost ~3,300 instructions of every signed-in request,
    /// for the one or two cookies a handler reads). Each item's name is compared first and
    /// only the item that matches is checked as `cookies(_:)` checks it; unlike that dictionary, which
    /// keeps the first 64 items, this finds the name anywhere in the field (it keeps nothing).
    static func cookie(_ name: String, in header: String?) -> String? {
        guard var header else { return nil }
        var name = name
        return name.withUTF8 { wanted in
            header.withUTF8 { bytes in
                guard !wanted.isEmpty else { return nil }
                var found: String?
                forEachItem(bytes) { name, value in
                    guard name.count == wanted.count, bytes[name].elementsEqual(wanted),
                        bytes[name].allSatisfy(isTokenByte), bytes[value].allSatisfy(isCookieValueByte)
                    else { return true }
                    found = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                    return false
                }
                return found
            }
        }
    }

    /// Calls `body` with the name's and the value's bytes of each well-formed item of a Cookie header,
    /// in order, for the first 64 of them.
    private static func forEachCookie(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (_ name: Range<Int>, _ value: Range<Int>) -> Void
    ) {
        var items = 0
        forEachItem(bytes) { name, value in
            guard !name.isEmpty, bytes[name].allSatisfy(isTokenByte), bytes[value].allSatisfy(isCookieValueByte)
            else { return true }
            items += 1
            body(name, value)
            return items < 64
        }
    }

    /// Calls `body` with each item of a Cookie header that has an "=", in order: its name without the
    /// spaces and tabs around it, and its value as `cookieValue` gives it, unchecked; until `body`
    /// returns false. Items are found with memchr (a byte loop, and splitting and trimming `Character`s
    /// before it, cost a sixth of a signed-in 304's instructions; bench/instructions.sh).
    private static func forEachItem(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (_ name: Range<Int>, _ value: Range<Int>) -> Bool
    ) {
        guard let base = bytes.baseAddress else { return }
        var itemStart = 0
        while itemStart < bytes.count {
            let itemEnd =
                memchr(base + itemStart, Int32(UInt8(ascii: ";")), bytes.count - itemStart).map {
                    UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
                } ?? bytes.count
            defer { itemStart = itemEnd + 1 }
            guard let equals = bytes[itemStart..<itemEnd].firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = trimmedSpaces(bytes, itemStart..<equals)
            if !body(name, cookieValue(bytes, (equals + 1)..<itemEnd)) { return }
        }
    }

    /// An item's value after its "=": without the spaces and tabs at either end, then without one pair of
    /// surrounding double quotes.
    private static func cookieValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        let value = trimmedSpaces(bytes, range)
        guard value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""),
            bytes[value.upperBound - 1] == UInt8(ascii: "\"")
        else { return value }
        return (value.lowerBound + 1)..<(value.upperBound - 1)
    }

    /// `range` without the spaces and tabs at either end.
    private static func trimmedSpaces(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, bytes[lower] == UInt8(ascii: " ") || bytes[lower] == UInt8(ascii: "\t") { lower += 1 }
        while upper > lower, bytes[upper - 1] == UInt8(ascii: " ") || bytes[upper - 1] == UInt8(ascii: "\t") {
            upper -= 1
        }
        return lower..<upper
    }

    /// RFC 9110 token characters (tchar, §5.6.2): letters, digits and ``!#$%&'*+-.^_`|~``, as two 64-bit
    /// masks (bit n of `tokenBytesLow` for byte n, of `tokenBytesHigh` for byte 64 + n). Every field name
    /// of every request is checked with it; the search of a String of the 15 marks that it replaces ran
    /// for each "-" of a name (~930 instructions of a 304, callgrind).
    /// `RFC9112FramingTests.tokenBytesAreExactlyRFC9110sTchar` checks all 256 bytes.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        if byte < 64 { return tokenBytesLow >> UInt64(byte) & 1 == 1 }
        return byte < 128 && tokenBytesHigh >> UInt64(byte - 64) & 1 == 1
    }

    static let tokenBytesLow: UInt64 = 0x03FF_6CFA_0000_0000
    static let tokenBytesHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    /// Printable ASCII but the cookie separators; no controls, no spaces, no quotes, no commas.
    private static func isCookieValueByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: ",")
            && byte != UInt8(ascii: ";") && byte != UInt8(ascii: "\\")
    }

    /// A header value safe to put on the wire: no CR, LF or NUL (response splitting), no other controls
    /// but tab.
    static func isSafeHeaderValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }
    }
}
