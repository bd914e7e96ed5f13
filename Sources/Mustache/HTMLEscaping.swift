/// Appends UTF-8 `bytes` to `output` made safe for HTML text and quoted attribute values.
///
/// Beyond the usual five (& < > " '), backtick and `=` are escaped too, so a value stays inert even
/// in an unquoted attribute by mistake. NUL becomes U+FFFD, as an HTML parser would make it.
/// Works on bytes: every character escaped is ASCII, so runs between them are copied whole and
/// multi-byte sequences are never split.
func appendEscapingHTML(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout OutputBuffer) {
    guard let base = bytes.baseAddress else { return }
    let count = bytes.count
    var runStart = 0
    var index = 0
    while index < count {
        // Find the next byte that may need escaping eight bytes at a time: most of a value is
        // letters and spaces (callgrind: ~13 instructions a byte one at a time, ~2 this way).
        if index + 8 <= count {
            let candidates = escapeCandidates(UnsafeRawPointer(base + index))
            if candidates == 0 {
                index += 8
                continue
            }
            index += candidates.trailingZeroBitCount / 8
        } else if count >= 8 {
            // The last few bytes, as the (overlapping) last eight with those before `index` ignored.
            let skipped = index - (count - 8)
            let candidates = escapeCandidates(UnsafeRawPointer(base + count - 8)) >> UInt64(skipped * 8)
            if candidates == 0 { break }
            index += candidates.trailingZeroBitCount / 8
        } else if !needsEscaping(base[index]) {
            // A value shorter than a word: byte by byte.
            index += 1
            continue
        }
        let byte = base[index]
        guard needsEscaping(byte) else {
            index += 1  // `#` or `?`, which escapeCandidates also reports
            continue
        }
        if runStart < index { output.append(base + runStart, count: index - runStart) }
        // Each replacement is at most 8 bytes, stored as one word (bytes in memory order).
        switch byte {
        case UInt8(ascii: "&"): output.appendWord(packed("&amp;"), count: 5)
        case UInt8(ascii: "<"): output.appendWord(packed("&lt;"), count: 4)
        case UInt8(ascii: ">"): output.appendWord(packed("&gt;"), count: 4)
        case UInt8(ascii: "\""): output.appendWord(packed("&quot;"), count: 6)
        case UInt8(ascii: "'"): output.appendWord(packed("&#39;"), count: 5)
        case UInt8(ascii: "`"): output.appendWord(packed("&#96;"), count: 5)
        case UInt8(ascii: "="): output.appendWord(packed("&#61;"), count: 5)
        default: output.appendWord(packed("\u{FFFD}"), count: 3)  // NUL, the only other byte needsEscaping admits
        }
        index += 1
        runStart = index
    }
    if runStart < count { output.append(base + runStart, count: count - runStart) }
}

/// Up to 8 bytes of text packed into a word in memory order (the first byte lowest),
/// for `OutputBuffer.appendWord`. Folded to a constant for a literal.
@inline(__always)
private func packed(_ text: StaticString) -> UInt64 {
    var word: UInt64 = 0
    text.withUTF8Buffer { bytes in
        for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * UInt64(index)) }
    }
    return word
}

/// Bits 0, 0x22 ("), 0x26 (&), 0x27 ('), 0x3C (<), 0x3D (=) and 0x3E (>): the escaped bytes below 64.
private let escapedBelow64: UInt64 = 1 << 0x00 | 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C | 1 << 0x3D | 1 << 0x3E

/// A shift and a mask rather than a comparison per escaped character: this runs for every byte of
/// every value on a page (callgrind: ~15 instructions a byte with a switch).
@inline(__always)
private func needsEscaping(_ byte: UInt8) -> Bool {
    byte < 64 ? (escapedBelow64 >> UInt64(byte)) & 1 != 0 : byte == UInt8(ascii: "`")
}

/// The bytes among the 8 at `address` that may need escaping, as the high bit of each such byte of
/// the result (the first byte in memory is the lowest); zero when none does. A few integer
/// operations for 8 bytes (SWAR); Swift's SIMD comparisons were compiled to a loop over lanes here,
/// slower than a byte at a time.
///
/// `(v - 0x01…) & ~v` sets a byte's high bit where v has a zero byte (exactly for the lowest such
/// byte; a borrow can add false ones above it, so only the lowest reported byte is to be trusted),
/// so each test is "the word XOR a repeated byte has a zero byte". Four tests cover the eight
/// escaped bytes, with `#` and `?` as false alarms that the exact byte check then clears: NUL;
/// `"`, `#`, `&`, `'` (OR 0x05 gives 0x27); `<`, `=`, `>`, `?` (OR 0x03 gives 0x3F); backtick.
@inline(__always)
private func escapeCandidates(_ address: UnsafeRawPointer) -> UInt64 {
    let word = UInt64(littleEndian: address.loadUnaligned(as: UInt64.self))
    @inline(__always) func repeated(_ byte: UInt64) -> UInt64 { byte &* 0x0101_0101_0101_0101 }
    @inline(__always) func zeroBytes(_ value: UInt64) -> UInt64 { (value &- repeated(0x01)) & ~value }
    let found =
        zeroBytes(word) | zeroBytes((word | repeated(0x05)) ^ repeated(0x27))
        | zeroBytes((word | repeated(0x03)) ^ repeated(0x3F)) | zeroBytes(word ^ repeated(0x60))
    return found & repeated(0x80)
}
