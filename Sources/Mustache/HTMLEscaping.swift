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
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard needsEscaping(byte) else {
                index += 1
                continue
            }
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            let replacement: StaticString
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            case UInt8(ascii: "`"): replacement = "&#96;"
            case UInt8(ascii: "="): replacement = "&#61;"
            default: replacement = "\u{FFFD}"  // NUL, the only other byte needsEscaping admits
            }
            replacement.withUTF8Buffer { output.append(contentsOf: $0) }
            index += 1
            runStart = index
        }
        if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }
}

/// Bits 0, 0x22 ("), 0x26 (&), 0x27 ('), 0x3C (<), 0x3D (=) and 0x3E (>): the escaped bytes below 64.
private let escapedBelow64: UInt64 = 1 << 0x00 | 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C | 1 << 0x3D | 1 << 0x3E

/// A shift and a mask rather than a comparison per escaped character: this runs for every byte of
/// every value on a page (callgrind: ~15 instructions a byte with a switch).
@inline(__always)
private func needsEscaping(_ byte: UInt8) -> Bool {
    byte < 64 ? (escapedBelow64 >> UInt64(byte)) & 1 != 0 : byte == UInt8(ascii: "`")
}
