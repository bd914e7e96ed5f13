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
}
