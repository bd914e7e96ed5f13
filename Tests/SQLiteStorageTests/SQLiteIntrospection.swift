import CSQLite
import Glibc

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

/// File descriptors this process has open (`/proc/self/fd`, less the one that reads it). A connection
/// holds its database file's, and its WAL's and shared memory's in WAL mode, until it is closed; one
/// closed with a statement not finalized stays open in SQLite (`sqlite3_close_v2`), and so do they.
func openFileDescriptorCount() -> Int {
    guard let folder = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(folder) }
    var count = 0
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
        if name != Array(".".utf8) && name != Array("..".utf8) { count += 1 }
    }
    return count - 1
}
