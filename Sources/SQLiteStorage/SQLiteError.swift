// SQLiteStorage: the SQLite wrapper (Database, Statement, Row), its migrator, and the WAL connection
// pool the app's store sits on. This target is the only place that talks to libsqlite3. The words both
// drivers read and write in (`SQLValue`, the row readers, `Migration`) are SQLCore's, re-exported here
// so that code importing SQLiteStorage has them as before.
import CSQLite

@_exported import SQLCore

/// A failure reported by SQLite, with enough context to act on it.
///
/// The SQL text is kept so a log line says which statement failed; bound values are never
/// included (they may be passwords, tokens or personal data).
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary result code (`SQLITE_CONSTRAINT` = 19, `SQLITE_NOTADB` = 26, …).
    public let code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` = 2067, …); equals `code` when SQLite gives none.
    public let extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`) or ours for misuse of this wrapper.
    public let message: String
    /// The statement being prepared or run, if any.
    public let sql: String?
    /// The database file, set for failures while opening it.
    public let path: String?

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, path: String? = nil) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.path = path
    }

    public var description: String {
        let codes = extendedCode == code ? "code \(code)" : "code \(code), extended \(extendedCode)"
        if let path {
            return "cannot open database \(path): \(message) (\(codes))"
        }
        if let sql {
            return "SQLite error: \(message) (\(codes)) in: \(sql)"
        }
        return "SQLite error: \(message) (\(codes))"
    }

    /// A UNIQUE, NOT NULL, CHECK or FOREIGN KEY constraint refused the change.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// Another connection held a lock longer than the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
}

extension SQLiteError {
    /// The error the connection `handle` reports right now.
    init(handle: OpaquePointer?, code: Int32, sql: String? = nil, path: String? = nil) {
        let message =
            handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        // With SQLITE_OPEN_EXRESCODE most calls already return the extended code; otherwise ask the
        // handle, but only trust its answer when it agrees (it can be stale after another call).
        var extended = code
        if code <= 0xFF, let handle {
            let fromHandle = sqlite3_extended_errcode(handle)
            if fromHandle & 0xFF == code { extended = fromHandle }
        }
        self.init(code: code & 0xFF, extendedCode: extended, message: message, sql: sql, path: path)
    }

    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, sql: sql)
    }
}
