import CSQLite

/// One row of a query result, copied out of SQLite so it outlives the statement.
///
/// Typed accessors return nil for NULL; asking for a column the query does not return throws,
/// so a typo fails loudly instead of reading as NULL.
public struct Row: Sendable, CopiedRow {
    public let columns: ResultColumns
    public let values: [SQLValue]

    public static func missingColumn(_ message: String) -> any Error {
        SQLiteError(code: SQLITE_RANGE, message: message)
    }
}
