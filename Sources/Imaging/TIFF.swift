/// A reader of the TIFF structure inside an EXIF block, written for hostile input: every read is
/// bounds-checked and returns nil when out of range; only IFD0 and the two sub-IFDs it points to are
/// read (no chain is followed), so there is nothing to loop on.
struct TIFFReader {
    struct Entry {
        let tag: Int
        let type: Int
        let count: Int
        /// Where the 4-byte value-or-offset field of the entry starts.
        let field: Int
    }

    private let bytes: [UInt8]
    private let bigEndian: Bool
    /// Offset of IFD0.
    let firstIFD: Int

    /// Entries read from one IFD at most: the count field is 16-bit, this also bounds it.
    static let maximumEntries = 1024
    /// Strings longer than this are refused (a date is 20 bytes).
    static let maximumStringLength = 256

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.bytes = bytes
        guard let magic = Self.u16(bytes, 2, bigEndian), magic == 42,
            let first = Self.u32(bytes, 4, bigEndian), first >= 8, first < bytes.count
        else { return nil }
        firstIFD = first
    }

    private static func u16(_ bytes: [UInt8], _ offset: Int, _ bigEndian: Bool) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = Int(bytes[offset])
        let b = Int(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private static func u32(_ bytes: [UInt8], _ offset: Int, _ bigEndian: Bool) -> Int? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        let b = (0..<4).map { Int(bytes[offset + $0]) }
        return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }

    func u16(at offset: Int) -> Int? { Self.u16(bytes, offset, bigEndian) }
    func u32(at offset: Int) -> Int? { Self.u32(bytes, offset, bigEndian) }

    /// The entries of the IFD at `offset` that lie entirely inside the block.
    func entries(at offset: Int) -> [Entry] {
        guard let declared = u16(at: offset) else { return [] }
        let count = min(declared, Self.maximumEntries)
        var entries: [Entry] = []
        for index in 0..<count {
            let start = offset + 2 + index * 12
            guard let tag = u16(at: start), let type = u16(at: start + 2), let n = u32(at: start + 4),
                start + 12 <= bytes.count
            else { break }
            entries.append(Entry(tag: tag, type: type, count: n, field: start + 8))
        }
        return entries
    }

    /// Size in bytes of one value of a TIFF field type; nil for unknown types.
    static func unitSize(_ type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// Offset of the value data of an entry (inline when it fits in 4 bytes), when entirely inside the block.
    func valueOffset(_ entry: Entry) -> Int? {
        guard let unit = Self.unitSize(entry.type), entry.count > 0, entry.count <= bytes.count else { return nil }
        let length = unit * entry.count
        guard length > 4 else { return entry.field }
        guard let offset = u32(at: entry.field), offset <= bytes.count - length else { return nil }
        return offset
    }

    /// Value `index` of an unsigned integer entry (BYTE, SHORT or LONG).
    func integer(_ entry: Entry, index: Int = 0) -> Int? {
        guard index >= 0, index < entry.count, let base = valueOffset(entry) else { return nil }
        switch entry.type {
        case 1: return base + index < bytes.count ? Int(bytes[base + index]) : nil
        case 3: return u16(at: base + index * 2)
        case 4: return u32(at: base + index * 4)
        default: return nil
        }
    }

    /// Value `index` of a RATIONAL or SRATIONAL entry; nil for a zero denominator.
    func rational(_ entry: Entry, index: Int) -> Double? {
        guard entry.type == 5 || entry.type == 10, index >= 0, index < entry.count,
            let base = valueOffset(entry),
            var numerator = u32(at: base + index * 8), var denominator = u32(at: base + index * 8 + 4)
        else { return nil }
        if entry.type == 10 {
            numerator = Int(Int32(truncatingIfNeeded: numerator))
            denominator = Int(Int32(truncatingIfNeeded: denominator))
        }
        guard denominator != 0 else { return nil }
        return Double(numerator) / Double(denominator)
    }

    /// An ASCII entry up to its first NUL; nil when not ASCII, too long, or holding non-printable bytes.
    func string(_ entry: Entry) -> String? {
        guard entry.type == 2, entry.count <= Self.maximumStringLength, let base = valueOffset(entry) else {
            return nil
        }
        var scalars: [UInt8] = []
        for byte in bytes[base..<(base + entry.count)] {
            if byte == 0 { break }
            guard byte >= 0x20, byte < 0x7F else { return nil }
            scalars.append(byte)
        }
        return String(decoding: scalars, as: UTF8.self)
    }

    /// The IFD pointed to by a LONG (or IFD-typed, 13) pointer entry such as 0x8825 or 0x8769.
    func pointer(_ entry: Entry) -> Int? {
        guard entry.count == 1 else { return nil }
        let offset: Int?
        switch entry.type {
        case 4, 13: offset = u32(at: entry.field)
        default: offset = nil
        }
        guard let offset, offset >= 8, offset < bytes.count else { return nil }
        return offset
    }
}
