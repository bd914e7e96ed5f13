/// Appends `text` to `output` made safe for HTML text and quoted attribute values.
///
/// Beyond the usual five (& < > " '), backtick and `=` are escaped too, so a value stays inert even
/// in an unquoted attribute by mistake. NUL becomes U+FFFD, as an HTML parser would make it.
func appendEscapingHTML(_ text: String, to output: inout String) {
    // Most values (names, dates, numbers) need no escaping: append them whole, without re-decoding.
    guard text.utf8.contains(where: needsEscaping) else {
        output.append(text)
        return
    }
    var text = text
    text.withUTF8 { bytes in
        var runStart = 0
        for index in 0..<bytes.count {
            let replacement: String
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
            // Runs end before an ASCII byte, so they are whole UTF-8 sequences.
            if runStart < index {
                output.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self))
            }
            output.append(replacement)
            runStart = index + 1
        }
        if runStart < bytes.count {
            output.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart...]), as: UTF8.self))
        }
    }
}

private func needsEscaping(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"),
        UInt8(ascii: "`"), UInt8(ascii: "="), 0:
        return true
    default:
        return false
    }
}
