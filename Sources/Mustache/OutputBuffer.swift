/// The page being rendered. It is written straight into the uninitialized storage of the array that
/// becomes the page, and moves to an allocation of its own, grown by doubling, only if it outgrows
/// that storage (the caller reserves what the last page from the template took).
///
/// Not appends to a `[UInt8]`: `Array.append(contentsOf:)` checks uniqueness and capacity through a
/// generic path, about 90 instructions per call in callgrind, and a page makes one call per template
/// text, value and escaped character (about a thousand for 50 rows). Here an append is a capacity
/// check and a copy. Writing into the page's own storage saves copying the finished page (callgrind:
/// 300,000 instructions, 8% of a list of 200 reports).
struct OutputBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    /// Bytes that may be appended; the storage has 8 more, for one word stored past the end (appendWord).
    private var capacity: Int
    private(set) var count = 0
    /// Whether the bytes are in an allocation of this buffer's rather than in the storage it was given.
    private(set) var outgrewStorage = false

    /// Writes into `storage` (uninitialized, at least 8 bytes) until it is full.
    init(storage: UnsafeMutableBufferPointer<UInt8>) {
        precondition(storage.count >= 8)
        base = storage.baseAddress!
        capacity = storage.count - 8
    }

    deinit {
        if outgrewStorage { base.deallocate() }
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        append(source, count: bytes.count)
    }

    @inline(__always)
    mutating func append(_ source: UnsafeRawPointer, count byteCount: Int) {
        if count + byteCount > capacity { grow(toAtLeast: count + byteCount) }
        let target = UnsafeMutableRawPointer(base + count)
        // Most runs are a few bytes (between escapes, a short value, a tag's surroundings), and a
        // call to memcpy cost ~40 instructions each in callgrind (a sixth of the rows page): up to
        // 32 bytes are copied here as two overlapping pairs of words, first and last.
        switch byteCount {
        case 16...32:
            copyWords(from: source, to: target, offset: 0)
            copyWords(from: source, to: target, offset: byteCount - 16)
        case 8..<16:
            target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: byteCount - 8, as: UInt64.self), toByteOffset: byteCount - 8,
                as: UInt64.self)
        case 4..<8:
            target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: byteCount - 4, as: UInt32.self), toByteOffset: byteCount - 4,
                as: UInt32.self)
        case 0..<4:
            var index = 0
            while index < byteCount {
                target.storeBytes(of: source.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
                index += 1
            }
        default:
            target.copyMemory(from: source, byteCount: byteCount)
        }
        count += byteCount
    }

    /// 16 bytes at `offset`, as two words.
    @inline(__always)
    private func copyWords(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, offset: Int) {
        let first = source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let second = source.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
        target.storeBytes(of: first, toByteOffset: offset, as: UInt64.self)
        target.storeBytes(of: second, toByteOffset: offset + 8, as: UInt64.self)
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
        let newCapacity = max(minimum, capacity * 2, 64)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + 8)
        newBase.initialize(from: base, count: count)
        if outgrewStorage { base.deallocate() }
        base = newBase
        capacity = newCapacity
        outgrewStorage = true
    }

    /// The bytes as an array of exactly their size.
    consuming func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }
}
