/// Small text helpers, kept here because FoundationEssentials leaves some of Foundation's out.
enum Text {
    /// Without leading and trailing white space (Unicode white space and newlines, as JS `trim()` does).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// What JavaScript's `String.prototype.trim` removes: WhiteSpace and LineTerminator (ECMA-262).
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "\u{FEFF}"
    }

    /// True when the text has a control character (C0, DEL, C1) other than the ones listed.
    static func hasControlCharacters(_ text: String, allowing allowed: Set<Unicode.Scalar> = []) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) && !allowed.contains(scalar)
        }
    }

    /// Lowercase hex of bytes, and back (nil for anything that is not even-length hex).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".unicodeScalars)
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.unicodeScalars.append(digits[Int(byte >> 4)])
            out.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    static func bytes(fromHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
