// Mustache: the template engine of the web pages. A subset of the Mustache spec (no lambdas, no
// delimiter changes). Templates are parsed once at start and compiled into one flat program
// (instructions and side tables, see Program.swift) that renders with HTML escaping on.
import Basics

/// The data a template renders. Literals make call sites read like the page:
/// `["title": "Reports", "rows": [["name": name, "count": 3]]]`.
public enum MustacheValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([MustacheValue])
    case dictionary([String: MustacheValue])
    /// A few named values in order, as a dictionary literal makes them: what page rows are.
    ///
    /// A list rather than a hash table: a row has a handful of short keys, and comparing short
    /// (small ASCII) Swift strings is a compare of their raw bits, where a hash table hashes the key
    /// on every insert and every lookup (perf: Hasher seed/combine/finalize and the dictionary
    /// storage were a fifth of a 50-row page, with one table allocated per row).
    case fields(MustacheFields)
    /// Rows of text straight from a query (`Database.queryText`): a section over it renders once per
    /// row, each row's cells named by the table's columns, and a cell's bytes are escaped into the
    /// page from the table itself. No value is built per row or per cell (see `TextTable`).
    case table(TextTable)
    /// One row of a table, as a section over the table sees it: the cells are its named values (a
    /// string each, or null for NULL).
    case tableRow(TextTable, Int)
}

/// Named values in insertion order; a later duplicate key replaces the earlier value.
public struct MustacheFields: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public let key: String
        public var value: MustacheValue
        /// The key's fingerprint (see `MustacheFields.fingerprint`), or 0 when not computed: set for
        /// lists of 5 keys or more, where lookups of names that are not in the list (a row's
        /// `{{csrf}}`, `{{t.…}}`) skip the keys by it instead of calling `==` on each.
        let fingerprint: UInt64

        init(key: String, value: MustacheValue, fingerprint: UInt64 = 0) {
            self.key = key
            self.value = value
            self.fingerprint = fingerprint
        }

        public static func == (lhs: Field, rhs: Field) -> Bool { lhs.key == rhs.key && lhs.value == rhs.value }
    }

    public private(set) var fields: [Field]

    public init(_ elements: [(String, MustacheValue)]) {
        // The pairs are moved out of the array from the end, leaving it empty: copying them out
        // and then destroying the array of tuples (a generic, per-element destroy in the runtime)
        // made building a row cost more than rendering it (callgrind: ~2,500 instructions for a
        // row of 3 values).
        var elements = elements
        var moved: [Field] = []
        moved.reserveCapacity(elements.count)
        let fingerprinted = elements.count > 4
        while let (key, value) = elements.popLast() {
            moved.append(
                Field(key: key, value: value, fingerprint: fingerprinted ? MustacheFields.fingerprint(key) : 0))
        }
        // Reversed by moving the fields in memory (Array.reverse swaps copies: a retain and a release each).
        moved.withUnsafeMutableBufferPointer { $0.reverse() }
        fields = moved
        if MustacheFields.hasDuplicateKeys(moved) {
            // Rare: built again one by one, so that a later duplicate replaces the earlier value.
            fields = []
            for field in moved { self[field.key] = field.value }
        }
    }

    /// Every pair of keys is compared, but through their fingerprints first when they have them:
    /// `==` on two different strings is a call into the standard library, and the 55 pairs of a
    /// report row's 11 keys cost ~2,500 instructions (callgrind), more than half of building the
    /// row. Up to 4 keys (6 pairs), plain comparisons are cheaper than making the fingerprints (a row
    /// of /bench/rows has 3: ~230 instructions against ~345).
    private static func hasDuplicateKeys(_ fields: [Field]) -> Bool {
        fields.withUnsafeBufferPointer { fields in
            var index = 1
            while index < fields.count {
                var earlier = 0
                while earlier < index {
                    if mayBeEqual(fields[index].fingerprint, fields[earlier].fingerprint),
                        fields[index].key == fields[earlier].key
                    {
                        return true
                    }
                    earlier += 1
                }
                index += 1
            }
            return false
        }
    }

    /// False only when two keys are certainly different: both fingerprinted, and differently.
    @inline(__always)
    static func mayBeEqual(_ fingerprint: UInt64, _ other: UInt64) -> Bool {
        fingerprint == other || fingerprint == 0 || other == 0
    }

    /// For an ASCII key: its length and first, middle and last bytes (never 0). Two ASCII strings are
    /// equal only byte for byte, so different fingerprints mean different keys. 0 for any other key:
    /// a non-ASCII string can equal an ASCII one under Unicode equivalence (U+212A KELVIN SIGN is
    /// "K"), so such a key is compared with `==` against every other.
    static func fingerprint(_ key: String) -> UInt64 {
        key.utf8.withContiguousStorageIfAvailable { bytes -> UInt64 in
            var any: UInt8 = 0
            for byte in bytes { any |= byte }
            guard any < 0x80 else { return 0 }
            guard let first = bytes.first, let last = bytes.last else { return 1 }
            let middle = bytes[bytes.count / 2]
            return 1 | UInt64(bytes.count) << 8 | UInt64(first) << 40 | UInt64(middle) << 48 | UInt64(last) << 56
        } ?? 0
    }

    public var isEmpty: Bool { fields.isEmpty }

    public subscript(key: String) -> MustacheValue? {
        get {
            var index = 0
            while index < fields.count {
                if fields[index].key == key { return fields[index].value }
                index += 1
            }
            return nil
        }
        set {
            if let index = fields.firstIndex(where: { $0.key == key }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append(Field(key: key, value: newValue))
            }
        }
    }
}

extension MustacheValue {
    /// Whether a section shows (and an inverted section hides).
    ///
    /// Falsy: null, false, an empty array and an empty string. Numbers, zero included, are truthy,
    /// as in the Mustache spec; pass a Bool when a count should hide a section.
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let value): return value
        case .array(let values): return !values.isEmpty
        case .string(let value): return !value.isEmpty
        case .table(let table): return table.rowCount > 0
        case .int, .double, .dictionary, .fields, .tableRow: return true
        }
    }

    public init(_ value: String?) { self = value.map(MustacheValue.string) ?? .null }
    public init(_ value: Int?) { self = value.map(MustacheValue.int) ?? .null }
    public init(_ value: Double?) { self = value.map(MustacheValue.double) ?? .null }
    public init(_ value: Bool?) { self = value.map(MustacheValue.bool) ?? .null }
    public init(_ values: [MustacheValue]) { self = .array(values) }
    public init(_ values: [String: MustacheValue]) { self = .dictionary(values) }
}

extension MustacheValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }

    /// Later duplicates of a key win, as in a Swift dictionary built by assignment.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .fields(MustacheFields(elements))
    }

    /// The value at `key` of a dictionary or fields value; nil for anything else or a missing key.
    public subscript(key: String) -> MustacheValue? {
        switch self {
        case .fields(let fields): return fields[key]
        case .dictionary(let dictionary): return dictionary[key]
        case .tableRow(let table, let row):
            return table.column(named: key).map { MustacheValue(table.string(row: row, column: $0)) }
        default: return nil
        }
    }
}

extension MustacheFields: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, MustacheValue)...) { self.init(elements) }
}
