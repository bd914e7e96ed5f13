import SQLiteStorage

/// Column names of a result, shared by all its rows.
final class PostgresColumns: Sendable {
    let names: [String]
    let indexes: [String: Int]

    init(names: [String]) {
        self.names = names
        var indexes: [String: Int] = [:]
        for (index, name) in names.enumerated() where indexes[name] == nil { indexes[name] = index }
        self.indexes = indexes
    }
}

/// One row of a query result, copied out of libpq's result so it outlives it. Values are typed by the
/// column's type: integers (`bigint`, `integer`, `smallint`, `boolean` as 1 or 0) as `.integer`,
/// `double precision`, `real` and `numeric` as `.real`, `bytea` as `.blob`, everything else as `.text`.
///
/// The accessors are those of SQLiteStorage's `Row`, so that a store reads both backends' rows alike; asking
/// for a column the query does not return throws.
public struct PostgresRow: Sendable, ValueReading {
    let columns: PostgresColumns
    public let values: [SQLValue]

    init(columns: PostgresColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public var columnNames: [String] { columns.names }
    public var count: Int { values.count }

    public func value(at index: Int) throws -> SQLValue {
        guard values.indices.contains(index) else {
            throw PostgresError.misuse("no column at index \(index) (row has \(values.count))")
        }
        return values[index]
    }

    public func value(named name: String) throws -> SQLValue {
        guard let index = columns.indexes[name] else {
            throw PostgresError.misuse(
                "no column named \(name) (columns: \(columns.names.joined(separator: ", ")))")
        }
        return values[index]
    }
}
