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
    /// Bytes that may be appended; the storage has `OutputBuffer.slack` more, for whole words stored
    /// past the end (appendWord, write(atMost:)).
    private var capacity: Int
    private(set) var count = 0
    /// Whether the bytes are in an allocation of this buffer's rather than in the storage it was given.
    private(set) var outgrewStorage = false

    static let slack = 16

    /// Writes into `storage` (uninitialized, at least `slack` bytes) until it is full.
    init(storage: UnsafeMutableBufferPointer<UInt8>) {
        guard let start = storage.baseAddress, storage.count >= OutputBuffer.slack else {
            preconditionFailure("an output buffer needs at least \(OutputBuffer.slack) bytes of storage")
        }
        base = start
        capacity = storage.count - OutputBuffer.slack
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
        target.copyMemory(from: source, byteCount: byteCount)
        count += byteCount
    }

    /// Appends `byteCount` bytes of template text from `source`, which has `slack` (16) readable bytes
    /// past them (Program.text): up to 32 bytes are copied as one or two 16-byte loads and stores
    /// (the second ending where the text ends) rather than a call to memcpy, ~25 instructions a
    /// call for the short texts between a page's tags. The stores may reach into the slack.
    @inline(__always)
    mutating func appendText(_ source: UnsafeRawPointer, count byteCount: Int) {
        guard byteCount <= 32 else { return append(source, count: byteCount) }
        if count + byteCount > capacity { grow(toAtLeast: count + byteCount) }
        let target = UnsafeMutableRawPointer(base + count)
        target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
        target.storeBytes(
            of: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
        if byteCount > 16 {
            let last = byteCount &- 16
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: last, as: UInt64.self), toByteOffset: last, as: UInt64.self)
            target.storeBytes(
                of: source.loadUnaligned(fromByteOffset: last &+ 8, as: UInt64.self), toByteOffset: last &+ 8,
                as: UInt64.self)
        }
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
        // The storage has bytes beyond `capacity`, so the whole word always fits.
        UnsafeMutableRawPointer(base + count).storeBytes(of: word.littleEndian, as: UInt64.self)
        count += byteCount
    }

    /// Lets `body` write up to `maximum` bytes at the end, and 16 more that it may overwrite but not
    /// keep; `body` returns how many it wrote. For writers that store whole words and advance by
    /// part of one (the escaper), with one capacity check for the lot.
    @inline(__always)
    mutating func write(atMost maximum: Int, _ body: (UnsafeMutableRawPointer) -> Int) {
        if count + maximum > capacity { grow(toAtLeast: count + maximum) }
        count += body(UnsafeMutableRawPointer(base + count))
    }

    @inline(never)
    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2, 64)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + OutputBuffer.slack)
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
