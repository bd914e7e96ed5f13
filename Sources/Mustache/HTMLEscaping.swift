/// Appends UTF-8 `bytes` to `output` made safe for HTML text and quoted attribute values.
///
/// Beyond the usual five (& < > " '), backtick and `=` are escaped too, so a value stays inert even
/// in an unquoted attribute by mistake. NUL becomes U+FFFD, as an HTML parser would make it.
/// Works on bytes: every character escaped is ASCII, so runs between them are copied whole and
/// multi-byte sequences are never split.
func appendEscapingHTML(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout OutputBuffer) {
    guard let base = bytes.baseAddress else { return }
    let count = bytes.count
    guard count >= 16 else {
        // Copied into 16 bytes padded with a letter, so that one test covers the whole value.
        var padded = SIMD16<UInt8>(repeating: UInt8(ascii: "a"))
        withUnsafeMutableBytes(of: &padded) { room in
            room.baseAddress!.copyMemory(from: base, byteCount: count)
            appendEscaping(room.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count, padded: true, to: &output)
        }
        return
    }
    appendEscaping(base, count: count, padded: false, to: &output)
}

/// `padded`: `base` has 16 readable bytes, those past `count` never needing escaping.
@inline(__always)
private func appendEscaping(_ base: UnsafePointer<UInt8>, count: Int, padded: Bool, to output: inout OutputBuffer) {
    var runStart = 0
    var index = 0
    while index < count {
        // The next byte that may need escaping, found 16 bytes at a time: most of a value is letters
        // and spaces (callgrind: ~13 instructions a byte one at a time, ~1.5 this way).
        var chunkStart = index
        var (low, high): (UInt64, UInt64)
        if index &+ 16 <= count, !padded {
            (low, high) = escapeCandidates(UnsafeRawPointer(base + index))
        } else {
            // Near the end: the last 16 bytes (or the padded 16) again, ignoring those before `index`.
            chunkStart = padded ? 0 : count &- 16
            (low, high) = escapeCandidates(UnsafeRawPointer(base + chunkStart))
            let skippedBits = UInt64(index &- chunkStart) &* 8
            if skippedBits >= 64 {
                low = 0
                high &= ~0 &<< (skippedBits &- 64)
            } else {
                low &= ~0 &<< skippedBits
            }
        }
        guard low | high != 0 else {
            if chunkStart &+ 16 >= count { break }
            index = chunkStart &+ 16
            continue
        }
        index = chunkStart &+ (low != 0 ? low.trailingZeroBitCount &>> 3 : 8 &+ high.trailingZeroBitCount &>> 3)
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

/// The bytes among the 16 at `address` that may need escaping, as the high bit of each such byte
/// of the result (`low` holds the first 8 bytes, the first in memory lowest); zero when none does.
///
/// Byte-wise vector arithmetic, which the compiler turns into ~20 SSE instructions for the 16
/// bytes (Swift's SIMD comparisons, tried first, were compiled to a loop over the lanes, slower
/// than a byte at a time). `(v - 1) & ~v` has its high bit set exactly where v is zero, so each
/// test is "the bytes XOR a constant are zero". Four tests cover the eight escaped bytes, with `#`
/// and `?` as false alarms that the exact byte check then clears: NUL; `"`, `#`, `&`, `'` (OR 0x05
/// gives 0x27); `<`, `=`, `>`, `?` (OR 0x03 gives 0x3F); backtick.
@inline(__always)
private func escapeCandidates(_ address: UnsafeRawPointer) -> (low: UInt64, high: UInt64) {
    let bytes = address.loadUnaligned(as: SIMD16<UInt8>.self)
    @inline(__always) func zero(_ value: SIMD16<UInt8>) -> SIMD16<UInt8> { (value &- SIMD16(repeating: 1)) & ~value }
    let found =
        zero(bytes) | zero((bytes | SIMD16(repeating: 0x05)) ^ SIMD16(repeating: 0x27))
        | zero((bytes | SIMD16(repeating: 0x03)) ^ SIMD16(repeating: 0x3F)) | zero(bytes ^ SIMD16(repeating: 0x60))
    let halves = unsafeBitCast(found & SIMD16(repeating: 0x80), to: (UInt64, UInt64).self)
    return (UInt64(littleEndian: halves.0), UInt64(littleEndian: halves.1))
}
