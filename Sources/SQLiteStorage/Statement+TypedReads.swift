import CSQLite

/// The current row's cells read by position straight into the type asked for: `ValueReading`'s
/// defaults made a `SQLValue` of each cell first, through `sqlite3_column_type`, `_text` and `_bytes`,
/// each of which checks the statement and the column again and cleans up after itself (about 65
/// instructions a call, see `appendTextCells`). Here: one `sqlite3_column_value` per cell, then its
/// type and contents read from that value. Each read gives what the default gives: nil for NULL and for
/// a type that does not convert (text is never parsed as a number, a number never made text), an
/// integer from a real only when exact, and an error for a column the statement does not have.
extension Statement {
    /// The cell at `index` of the current row. Connections are opened `SQLITE_OPEN_NOMUTEX`, in which
    /// SQLite documents the unprotected value `sqlite3_column_value` returns as readable with the
    /// `sqlite3_value_*` functions.
    private func cell(_ index: Int) throws -> OpaquePointer? {
        let handle = try liveHandle()
        let count = Int(sqlite3_column_count(handle))
        guard index >= 0, index < count else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "no column at index \(index) (statement has \(count))", sql: sql)
        }
        return sqlite3_column_value(handle, Int32(index))
    }

    public func int(_ index: Int) throws -> Int64? {
        let value = try cell(index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_FLOAT: return Int64(exactly: sqlite3_value_double(value))
        default: return nil
        }
    }

    public func double(_ index: Int) throws -> Double? {
        let value = try cell(index)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_INTEGER: return Double(sqlite3_value_int64(value))
        default: return nil
        }
    }

    /// The text, decoded as `value(at:)` decodes it (invalid UTF-8 repaired with U+FFFD); nil for NULL,
    /// numbers and blobs.
    public func string(_ index: Int) throws -> String? {
        let value = try cell(index)
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        // The pointer before the length, as SQLite documents.
        let pointer = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let pointer, count > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
