// SQLCore: what both database drivers (SQLiteStorage, PostgresStorage) have in common and neither
// owns: the value type, the readers of a row's values, and the numbered migrations with their plan and
// errors. No engine here: each driver binds, reads and migrates with its own library.

/// A value a database stores or returns: SQLite's five storage classes, which PostgreSQL's values are
/// read into (PostgresRow says how).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: Double) { self = .real(value) }
    public init(_ value: String) { self = .text(value) }
    public init(_ value: [UInt8]) { self = .blob(value) }
    /// Booleans are stored as SQLite does: 1 and 0.
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    /// `nil` becomes NULL.
    public init<T>(_ value: T?) where T: SQLValueConvertible { self = value?.sqlValue ?? .null }

    public var isNull: Bool { self == .null }

    /// The integer, or a real with no fractional part; nil for NULL and other types.
    public var int: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The real, or an integer widened; nil for NULL and other types.
    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    /// The text; nil for NULL and other types (a blob is not silently decoded).
    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The blob, or text as its UTF-8 bytes; nil for NULL and numbers.
    public var blob: [UInt8]? {
        switch self {
        case .blob(let value): return value
        case .text(let value): return Array(value.utf8)
        default: return nil
        }
    }
}

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

/// A Swift type with an obvious SQL representation, so optionals bind as NULL.
public protocol SQLValueConvertible {
    var sqlValue: SQLValue { get }
}

extension Int: SQLValueConvertible { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLValueConvertible { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLValueConvertible { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLValueConvertible { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLValueConvertible { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Array: SQLValueConvertible where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
