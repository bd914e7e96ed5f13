import SQLCore

/// One row of a query result, copied out of libpq's result so it outlives it. Values are typed by the
/// column's type: integers (`bigint`, `integer`, `smallint`, `boolean` as 1 or 0) as `.integer`,
/// `double precision`, `real` and `numeric` as `.real`, `bytea` as `.blob`, everything else as `.text`.
///
/// The accessors are those of SQLiteStorage's `Row` (SQLCore's `CopiedRow`), so that a store reads both
/// backends' rows alike; asking for a column the query does not return throws.
public struct PostgresRow: Sendable, CopiedRow {
    public let columns: ResultColumns
    public let values: [SQLValue]

    public static func missingColumn(_ message: String) -> any Error { PostgresError.misuse(message) }
}
