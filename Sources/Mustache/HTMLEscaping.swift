/// Appends UTF-8 `bytes` to `output` made safe for HTML text and quoted attribute values.
///
/// Beyond the usual five (& < > " '), backtick and `=` are escaped too, so a value stays inert even
/// in an unquoted attribute by mistake. NUL becomes U+FFFD, as an HTML parser would make it.
/// Works on bytes: every character escaped is ASCII, so runs between them are copied whole and
/// multi-byte sequences are never split. Inlined where the renderer calls it: a call cost ~40
/// instructions a value in saving and restoring registers.
@inline(__always)
func appendEscapingHTML(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout OutputBuffer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    let count = bytes.count
    // At most 6 bytes out for one in (`&quot;`).
    guard count < 16 else {
        output.write(atMost: count * 6) { escape(base, count: count, padded: false, into: $0) }
        return
    }
    // Copied into 16 bytes padded with a letter, so that one test covers the whole value.
    var padded = SIMD16<UInt8>(repeating: UInt8(ascii: "a"))
    withUnsafeMutablePointer(to: &padded) { vector in
        let room = UnsafeMutableRawPointer(vector)
        room.copyMemory(from: base, byteCount: count)
        let start = room.assumingMemoryBound(to: UInt8.self)
        output.write(atMost: count * 6) { escape(start, count: count, padded: true, into: $0) }
    }
}

/// Writes the escaped bytes at `target` and returns how many. 16 bytes at a time: each chunk is
/// tested, stored whole, and kept up to its first byte that may need escaping (callgrind: ~13
/// instructions a byte one at a time; copying the clean runs with memcpy afterwards cost a call,
/// ~35 instructions, per value). Near the end, the last 16 bytes (or the padded 16) are loaded and
/// shifted so that they start at `index`.
///
/// `padded`: `base` has 16 readable bytes, those past `count` never needing escaping.
@inline(__always)
private func escape(
    _ base: UnsafePointer<UInt8>, count: Int, padded: Bool, into target: UnsafeMutableRawPointer
) -> Int {
    var out = target
    var index = 0
    while index < count {
        var chunk: (low: UInt64, high: UInt64)
        var candidates: (low: UInt64, high: UInt64)
        if index &+ 16 <= count, !padded {
            (chunk, candidates) = loadChunk(UnsafeRawPointer(base + index))
        } else {
            let chunkStart = padded ? 0 : count &- 16
            (chunk, candidates) = loadChunk(UnsafeRawPointer(base + chunkStart))
            let skippedBits = UInt64(index &- chunkStart) &* 8
            chunk = shiftedDown(chunk, by: skippedBits)
            candidates = shiftedDown(candidates, by: skippedBits)
        }
        out.storeBytes(of: chunk.low.littleEndian, as: UInt64.self)
        out.storeBytes(of: chunk.high.littleEndian, toByteOffset: 8, as: UInt64.self)
        let available = min(16, count &- index)
        let clean =
            candidates.low != 0
            ? candidates.low.trailingZeroBitCount &>> 3
            : candidates.high != 0 ? 8 &+ candidates.high.trailingZeroBitCount &>> 3 : 16
        guard clean < available else {
            out += available
            index &+= available
            continue
        }
        out += clean
        index &+= clean
        let byte = base[index]
        index &+= 1
        // Each replacement is at most 8 bytes, stored as one word (bytes in memory order).
        let replacement: (word: UInt64, count: Int)
        switch byte {
        case UInt8(ascii: "&"): replacement = (packed("&amp;"), 5)
        case UInt8(ascii: "<"): replacement = (packed("&lt;"), 4)
        case UInt8(ascii: ">"): replacement = (packed("&gt;"), 4)
        case UInt8(ascii: "\""): replacement = (packed("&quot;"), 6)
        case UInt8(ascii: "'"): replacement = (packed("&#39;"), 5)
        case UInt8(ascii: "`"): replacement = (packed("&#96;"), 5)
        case UInt8(ascii: "="): replacement = (packed("&#61;"), 5)
        case 0: replacement = (packed("\u{FFFD}"), 3)
        default: replacement = (UInt64(byte), 1)  // `#` or `?`, which loadChunk also reports
        }
        out.storeBytes(of: replacement.word.littleEndian, as: UInt64.self)
        out += replacement.count
    }
    return out - target
}

/// A 128-bit value held as two words (the first 8 bytes in memory in `low`, little-endian), shifted
/// towards the start by `bits` (a multiple of 8 below 128).
@inline(__always)
private func shiftedDown(_ value: (low: UInt64, high: UInt64), by bits: UInt64) -> (low: UInt64, high: UInt64) {
    if bits == 0 { return value }
    if bits >= 64 { return (value.high &>> (bits &- 64), 0) }
    return ((value.low &>> bits) | (value.high &<< (64 &- bits)), value.high &>> bits)
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

/// The 16 bytes at `address` as two words (the first 8 in `low`), and those that may need escaping
/// as the high bit of each such byte, laid out the same way; zero when none does.
///
/// Byte-wise vector arithmetic, which the compiler turns into ~20 SSE instructions for the 16
/// bytes (Swift's SIMD comparisons, tried first, were compiled to a loop over the lanes, slower
/// than a byte at a time). `(v - 1) & ~v` has its high bit set exactly where v is zero, so each
/// test is "the bytes XOR a constant are zero". Four tests cover the eight escaped bytes, with `#`
/// and `?` as false alarms that the escaper copies unchanged: NUL; `"`, `#`, `&`, `'` (OR 0x05
/// gives 0x27); `<`, `=`, `>`, `?` (OR 0x03 gives 0x3F); backtick.
@inline(__always)
private func loadChunk(_ address: UnsafeRawPointer) -> (
    bytes: (low: UInt64, high: UInt64), candidates: (low: UInt64, high: UInt64)
) {
    let bytes = address.loadUnaligned(as: SIMD16<UInt8>.self)
    @inline(__always) func zero(_ value: SIMD16<UInt8>) -> SIMD16<UInt8> { (value &- SIMD16(repeating: 1)) & ~value }
    let found =
        zero(bytes) | zero((bytes | SIMD16(repeating: 0x05)) ^ SIMD16(repeating: 0x27))
        | zero((bytes | SIMD16(repeating: 0x03)) ^ SIMD16(repeating: 0x3F)) | zero(bytes ^ SIMD16(repeating: 0x60))
    @inline(__always) func words(_ vector: SIMD16<UInt8>) -> (low: UInt64, high: UInt64) {
        let halves = unsafeBitCast(vector, to: (UInt64, UInt64).self)
        return (UInt64(littleEndian: halves.0), UInt64(littleEndian: halves.1))
    }
    return (words(bytes), words(found & SIMD16(repeating: 0x80)))
}
