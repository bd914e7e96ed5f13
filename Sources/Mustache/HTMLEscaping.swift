/// Appends the UTF-8 of `text` to `output` made safe for HTML text and quoted attribute values.
///
/// Beyond the usual five (& < > " '), backtick and `=` are escaped too, so a value stays inert even
/// in an unquoted attribute by mistake. NUL becomes U+FFFD, as an HTML parser would make it.
/// Works on bytes: every character escaped is ASCII, so runs between them are copied whole and
/// multi-byte sequences are never split.
func appendEscapingHTML(_ text: String, to output: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
        var runStart = 0
        for index in 0..<bytes.count {
            let replacement: StaticString
            switch bytes[index] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            case UInt8(ascii: "`"): replacement = "&#96;"
            case UInt8(ascii: "="): replacement = "&#61;"
            case 0: replacement = "\u{FFFD}"
            default: continue
            }
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            replacement.withUTF8Buffer { output.append(contentsOf: $0) }
            runStart = index + 1
        }
        if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }
}

