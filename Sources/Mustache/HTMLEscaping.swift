/// Appends the UTF-8 of `text` to `output` made safe for HTML text and quoted attribute values.
///
/// Beyond the usual five (& < > " '), backtick and `=` are escaped too, so a value stays inert even
/// in an unquoted attribute by mistake. NUL becomes U+FFFD, as an HTML parser would make it.
/// Works on bytes: every character escaped is ASCII, so runs between them are copied whole and
/// multi-byte sequences are never split.
func appendEscapingHTML(_ text: String, to output: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var runStart = 0
        var index = 0
        while index < count {
            // Eight bytes at a time while none needs escaping: most of a value is letters and spaces
            // (callgrind: ~13 instructions a byte one at a time).
            while index + 8 <= count, !wordMayNeedEscaping(UnsafeRawPointer(base + index)) { index += 8 }
            // The last few bytes as the (overlapping) last eight, which were checked up to `index`.
            if index + 8 > count, count >= 8, !wordMayNeedEscaping(UnsafeRawPointer(base + count - 8)) { break }
            // One at a time to the next byte to escape, at most 8 on (or the end).
            let stop = min(index + 8, count)
            while index < stop, !needsEscaping(base[index]) { index += 1 }
            guard index < stop else { continue }
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart)) }
            let replacement: StaticString
            switch base[index] {
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
        if runStart < count { output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart)) }
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

/// Whether any of the 8 bytes at `address` may need escaping, tested on the word at once (SWAR): a
/// few integer operations for 8 bytes. Swift's SIMD comparisons were compiled to a loop over lanes
/// here, three times slower than a byte at a time.
///
/// `(v - 0x01…) & ~v` has a byte's high bit set for some byte of v iff v has a zero byte, so each
/// test is "the word XOR a repeated byte has a zero byte". Four tests cover the eight escaped bytes,
/// with `#` and `?` as false alarms that the exact byte check then clears:
/// NUL; `"`, `#`, `&`, `'` (OR 0x05 gives 0x27); `<`, `=`, `>`, `?` (OR 0x03 gives 0x3F); backtick.
@inline(__always)
private func wordMayNeedEscaping(_ address: UnsafeRawPointer) -> Bool {
    let word = address.loadUnaligned(as: UInt64.self)
    @inline(__always) func repeated(_ byte: UInt64) -> UInt64 { byte &* 0x0101_0101_0101_0101 }
    @inline(__always) func zeroBytes(_ value: UInt64) -> UInt64 { (value &- repeated(0x01)) & ~value }
    let found =
        zeroBytes(word) | zeroBytes((word | repeated(0x05)) ^ repeated(0x27))
        | zeroBytes((word | repeated(0x03)) ^ repeated(0x3F)) | zeroBytes(word ^ repeated(0x60))
    return found & repeated(0x80) != 0
}
