/// The contexts a render looks names up in, innermost last, and the rules for pointing into them.
///
/// Lookups hand out pointers to values instead of copies: copying a `MustacheValue` out of a frame
/// retains its payload and releases it after the tag (perf: retain/release ~20% of the report
/// list, most of it in the renderer). A pointer stays valid while what holds the value does not
/// change: a value inside a frame's arrays is held by that frame, which stays on the stack until
/// the section that pushed it ends, and nothing mutates a context during a render (the caller's
/// value was passed in, and copies of it share storage that copy-on-write never writes to). A
/// value found in a Swift dictionary has no address of its own, so it is copied into `held`; such a
/// pointer is valid until the next lookup, and sections copy what they push.
struct ContextStack: ~Copyable {
    private var frames: UnsafeMutablePointer<MustacheValue>
    private var capacity: Int
    private(set) var depth = 0
    private let held: UnsafeMutablePointer<MustacheValue>

    init(root: MustacheValue) {
        capacity = 16
        frames = .allocate(capacity: capacity)
        held = .allocate(capacity: 1)
        held.initialize(to: .null)
        push(root)
    }

    deinit {
        frames.deinitialize(count: depth)
        frames.deallocate()
        held.deinitialize(count: 1)
        held.deallocate()
    }

    /// The frame `index` from the outermost (0).
    @inline(__always)
    subscript(index: Int) -> UnsafePointer<MustacheValue> { UnsafePointer(frames + index) }

    /// A copy of `value` becomes the innermost context.
    mutating func push(_ value: MustacheValue) {
        if depth == capacity {
            let larger = UnsafeMutablePointer<MustacheValue>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: frames, count: depth)
            frames.deallocate()
            frames = larger
            capacity *= 2
        }
        (frames + depth).initialize(to: value)
        depth += 1
    }

    mutating func pop() {
        depth -= 1
        (frames + depth).deinitialize(count: 1)
    }

    /// Keeps `value` (found by copy) until the next call, and points to it.
    func hold(_ value: MustacheValue) -> UnsafePointer<MustacheValue> {
        held.pointee = value
        return UnsafePointer(held)
    }
}

extension MustacheFields {
    /// Where the value of `key` is stored in this list's storage (see ContextStack for how long
    /// that is valid), looking first at the position `hint` (where the key was found last time);
    /// `newHint` is where it was found when that was elsewhere, or -1.
    ///
    /// Rows of a page are made by the same code, so a key is almost always where it was in the
    /// previous row: one check instead of comparing the keys before it, each a call into the
    /// standard library when the strings differ (callgrind: 16% of a list of 200 reports). The hint
    /// is checked by the strings' bits: equal bits are the same string; anything else is decided
    /// by `==` in the scan.
    @inline(__always)
    func address(of key: String, fingerprint: UInt64, hint: Int) -> (value: UnsafePointer<MustacheValue>?, newHint: Int)
    {
        fields.withUnsafeBufferPointer { buffer in
            if hint < buffer.count, sameBits(buffer[hint].key, key) { return (valueAddress(buffer, hint), -1) }
            var index = 0
            while index < buffer.count {
                if MustacheFields.mayBeEqual(buffer[index].fingerprint, fingerprint), buffer[index].key == key {
                    return (valueAddress(buffer, index), index)
                }
                index += 1
            }
            return (nil, -1)
        }
    }

    /// The value of `key` if it is at `hint` (checked by the strings' bits only).
    @inline(__always)
    func address(of key: String, atHint hint: Int) -> UnsafePointer<MustacheValue>? {
        fields.withUnsafeBufferPointer { buffer in
            hint < buffer.count && sameBits(buffer[hint].key, key) ? valueAddress(buffer, hint) : nil
        }
    }

    @inline(__always)
    private func valueAddress(_ buffer: UnsafeBufferPointer<Field>, _ index: Int) -> UnsafePointer<MustacheValue> {
        let field = UnsafeRawPointer(buffer.baseAddress! + index)
        return (field + MemoryLayout<Field>.offset(of: \Field.value)!).assumingMemoryBound(to: MustacheValue.self)
    }
}

/// Whether two strings have the same representation: then they are equal (a small string's bytes
/// are its bits; a large one's bits are its count and storage). Different bits decide nothing.
@inline(__always)
func sameBits(_ a: String, _ b: String) -> Bool {
    unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
}
