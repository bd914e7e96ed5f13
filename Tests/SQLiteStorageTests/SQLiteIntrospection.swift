import CSQLite

@testable import SQLiteStorage

/// Prepared statements not yet finalized on `database`'s connection.
func outstandingStatementCount(_ database: Database) -> Int {
    guard let handle = database.handle else { return 0 }
    var count = 0
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
        count += 1
        statement = sqlite3_next_stmt(handle, current)
    }
    return count
}

/// Bytes currently allocated by SQLite in this process.
func sqliteMemoryUsed() -> Int64 { sqlite3_memory_used() }
