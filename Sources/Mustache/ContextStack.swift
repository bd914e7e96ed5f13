/// The contexts a render looks names up in, innermost last, and the rules for pointing into them.
///
/// Lookups hand out pointers to values instead of copies: copying a `MustacheValue` out of a frame
/// retains its payload and releases it after the tag (perf: retain/release ~20% of the report
/// list, most of it in the renderer). A pointer stays valid while what holds the value does not
/// change: a value inside a frame's arrays is held by that frame, which stays on the stack until
/// the section that pushed it ends, and nothing mutates a context during a render (the caller's
/// value was passed in, and copies of it share storage that copy-on-write never writes to). A
/// value found in a Swift dictionary has no address of its own, so it is copied into `held` (or,
/// for a whole name, kept in `remembered`); such a pointer is valid until the next lookup, and
/// sections copy what they push.
struct ContextStack: ~Copyable {
    private var frames: UnsafeMutablePointer<MustacheValue>
    /// For each frame, a number no other frame of this render has: a frame at a depth with the same
    /// number is the same frame, unchanged since.
    private var generations: UnsafeMutablePointer<Int>
    private var capacity: Int
    private(set) var depth = 0
    private var pushes = 0
    private let held: UnsafeMutablePointer<MustacheValue>
    /// Names resolved through Swift dictionaries, remembered for the rest of the render (see
    /// `remember`): for each key index of the program, -1 or an index in `remembered`; allocated at
    /// the first such name.
    private var rememberedIndex: UnsafeMutablePointer<Int>?
    private let keyCount: Int
    private var remembered: [Remembered] = []

    struct Remembered {
        /// Where the name's first key was found.
        let depth: Int
        let generation: Int
        var value: MustacheValue
    }

    init(root: MustacheValue, keyCount: Int) {
        capacity = 16
        frames = .allocate(capacity: capacity)
        generations = .allocate(capacity: capacity)
        held = .allocate(capacity: 1)
        held.initialize(to: .null)
        self.keyCount = keyCount
        push(root)
    }

    deinit {
        frames.deinitialize(count: depth)
        frames.deallocate()
        generations.deallocate()
        held.deinitialize(count: 1)
        held.deallocate()
        rememberedIndex?.deallocate()
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
            let largerGenerations = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2)
            largerGenerations.update(from: generations, count: depth)
            generations.deallocate()
            generations = largerGenerations
            capacity *= 2
        }
        (frames + depth).initialize(to: value)
        generations[depth] = pushes
        pushes += 1
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

    func isHeld(_ value: UnsafePointer<MustacheValue>) -> Bool { value == UnsafePointer(held) }

    /// The value remembered for the name whose first key is `key`, if that key was found in the
    /// frame at `frame` and that frame is still the same one.
    @inline(__always)
    func remembered(_ key: Int, foundIn frame: Int) -> UnsafePointer<MustacheValue>? {
        guard let rememberedIndex, rememberedIndex[key] >= 0 else { return nil }
        return remembered.withUnsafeBufferPointer { entries in
            // Both guards hold (an index is set only after an append; `value` is stored) and fold away.
            guard let first = entries.baseAddress, let offset = MemoryLayout<Remembered>.offset(of: \.value) else {
                return nil
            }
            let entry = first + rememberedIndex[key]
            guard entry.pointee.depth == frame, entry.pointee.generation == generations[frame] else { return nil }
            return UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: MustacheValue.self)
        }
    }

    /// Keeps `value`, found for the name whose first key is `key` in the frame at `frame`, for as
    /// long as that frame is on the stack. A value found through a Swift dictionary is copied out of
    /// it (hashing the name, or walking a small dictionary's pairs, each time: ~700 instructions
    /// for a `{{t.common.delete}}` in a row), and the frames do not change during a render, so the
    /// next lookup of that name that reaches the same frame gets it from here. The pointer is valid
    /// until the next call (which may grow the list).
    mutating func remember(
        _ value: MustacheValue, for key: Int, foundIn frame: Int
    ) -> UnsafePointer<MustacheValue> {
        let index: UnsafeMutablePointer<Int>
        if let existing = rememberedIndex {
            index = existing
        } else {
            index = UnsafeMutablePointer<Int>.allocate(capacity: max(keyCount, 1))
            index.initialize(repeating: -1, count: max(keyCount, 1))
            rememberedIndex = index
        }
        let entry = Remembered(depth: frame, generation: generations[frame], value: value)
        if index[key] >= 0 {
            remembered[index[key]] = entry
        } else {
            index[key] = remembered.count
            remembered.append(entry)
        }
        guard let kept = remembered(key, foundIn: frame) else {
            preconditionFailure("a value just remembered for frame \(frame) is not found there")
        }
        return kept
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
        // Both guards hold (the caller found `index` in the buffer; `value` is stored) and fold away.
        guard let first = buffer.baseAddress, let offset = MemoryLayout<Field>.offset(of: \.value) else {
            preconditionFailure("a field list has an address and a stored value")
        }
        return (UnsafeRawPointer(first + index) + offset).assumingMemoryBound(to: MustacheValue.self)
    }
}

/// Whether two strings have the same representation: then they are equal (a small string's bytes
/// are its bits; a large one's bits are its count and storage). Different bits decide nothing.
@inline(__always)
func sameBits(_ a: String, _ b: String) -> Bool {
    #if _pointerBitWidth(_64)
        // A String is two words on 64-bit platforms.
        unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
    #else
        a == b
    #endif
}
