/// The page being rendered: bytes in one allocation grown by hand, copied once into an array at the end.
///
/// Not a `[UInt8]`: `Array.append(contentsOf:)` checks uniqueness and capacity through a generic
/// path, about 90 instructions per call in callgrind, and a page makes one call per template text,
/// value and escaped character (about a thousand for 50 rows). Here an append is a capacity check and
/// a copy; the final copy into an array is one memcpy (a few hundred instructions for a 10 kB page).
struct OutputBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        // Room for one 8-byte store past the last byte appended (see appendWord).
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity + 8)
    }

    deinit { base.deallocate() }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        append(source, count: bytes.count)
    }

    @inline(__always)
    mutating func append(_ source: UnsafeRawPointer, count byteCount: Int) {
        if count + byteCount > capacity { grow(toAtLeast: count + byteCount) }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: byteCount)
        count += byteCount
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    mutating func append<Bytes: Collection<UInt8>>(contentsOf bytes: Bytes) {
        if bytes.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) != nil { return }
        for byte in bytes { appendWord(UInt64(byte), count: 1) }
    }

    /// Appends the first `byteCount` (at most 8) bytes of `word` in memory order with a single store:
    /// an escape like `&amp;` costs a few instructions instead of a call to memcpy.
    @inline(__always)
    mutating func appendWord(_ word: UInt64, count byteCount: Int) {
        if count + byteCount > capacity { grow(toAtLeast: count + byteCount) }
        // The allocation has 8 bytes beyond `capacity`, so the whole word always fits.
        UnsafeMutableRawPointer(base + count).storeBytes(of: word.littleEndian, as: UInt64.self)
        count += byteCount
    }

    @inline(never)
    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + 8)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The bytes as an array of exactly their size.
    consuming func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }
}
