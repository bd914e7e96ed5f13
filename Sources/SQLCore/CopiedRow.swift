/// The column names of a result, shared by all its rows, with each name's index (the first column
/// when several share a name).
public final class ResultColumns: Sendable {
    public let names: [String]
    @usableFromInline let indexes: [String: Int]

    public init(names: [String]) {
        self.names = names
        var indexes: [String: Int] = [:]
        for (index, name) in names.enumerated() where indexes[name] == nil { indexes[name] = index }
        self.indexes = indexes
    }

    /// The index of the column called `name`; nil when the result has none.
    @inlinable public func index(named name: String) -> Int? { indexes[name] }
}

/// A row of a result copied out of its driver so it outlives it, as both drivers make them (SQLite's
/// `Row`, PostgreSQL's `PostgresRow`): the reads by position and by name are written once, here, and
/// a driver gives only its own error for a column the row does not have. Inlinable for the same
/// reason as `ValueReading`'s typed reads: a store's loop over rows calls these once per column.
public protocol CopiedRow: ValueReading {
    var columns: ResultColumns { get }
    var values: [SQLValue] { get }
    /// The driver's error for a column the row does not have; `message` says which and why.
    static func missingColumn(_ message: String) -> any Error
}

extension CopiedRow {
    @inlinable public var columnNames: [String] { columns.names }
    @inlinable public var count: Int { values.count }

    @inlinable public func value(at index: Int) throws -> SQLValue {
        guard values.indices.contains(index) else {
            throw Self.missingColumn("no column at index \(index) (row has \(values.count))")
        }
        return values[index]
    }

    @inlinable public func value(named name: String) throws -> SQLValue {
        guard let index = columns.index(named: name) else {
            throw Self.missingColumn("no column named \(name) (columns: \(columns.names.joined(separator: ", ")))")
        }
        return values[index]
    }
}
