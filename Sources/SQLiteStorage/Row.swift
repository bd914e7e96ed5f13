import CSQLite

/// Column names of a result, shared by all its rows.
final class RowColumns: Sendable {
    let names: [String]
    let indexes: [String: Int]

    init(names: [String], indexes: [String: Int]) {
        self.names = names
        self.indexes = indexes
    }
}

/// One row of a query result, copied out of SQLite so it outlives the statement.
///
/// Typed accessors return nil for NULL; asking for a column the query does not return throws,
/// so a typo fails loudly instead of reading as NULL.
public struct Row: Sendable, ValueReading {
    let columns: RowColumns
    public let values: [SQLValue]

    init(columns: RowColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public var columnNames: [String] { columns.names }
    public var count: Int { values.count }

    public func value(at index: Int) throws -> SQLValue {
        guard values.indices.contains(index) else {
            throw SQLiteError(code: SQLITE_RANGE, message: "no column at index \(index) (row has \(values.count))")
        }
        return values[index]
    }

    public func value(named name: String) throws -> SQLValue {
        guard let index = columns.indexes[name] else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message: "no column named \(name) (columns: \(columns.names.joined(separator: ", ")))")
        }
        return values[index]
    }
}
