import Basics
import CSQLite

/// A compiled SQL statement. Parameters are bound, never interpolated; `deinit` finalizes it.
///
/// It keeps its `Database` alive, so the connection cannot be freed under a live statement.
public final class Statement: ValueReading {
    public let database: Database
    /// The SQL as written, without bound values (safe to log).
    public let sql: String
    private var handle: OpaquePointer?
    /// The result's columns, read at the first lookup by name or first row and shared by its rows.
    private lazy var resultColumns = ResultColumns(names: columnNames)

    init(database: Database, sql: String) throws {
        self.database = database
        self.sql = sql
        let connection = try database.openHandle(sql: sql)
        var handle: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            let result = sqlite3_prepare_v2(connection, text, -1, &handle, &tail)
            // Anything but whitespace and semicolons after the first statement would be silently
            // ignored by SQLite; refuse it instead (scripts go through `execute`).
            if result == SQLITE_OK, let tail, !Statement.isBlank(tail) {
                return SQLITE_MISUSE
            }
            return result
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(handle)
            if code == SQLITE_MISUSE {
                throw SQLiteError.misuse("prepare takes one statement; use execute for scripts", sql: sql)
            }
            throw SQLiteError(handle: connection, code: code, sql: sql)
        }
        guard let handle else {
            throw SQLiteError.misuse("no SQL statement to prepare", sql: sql)
        }
        self.handle = handle
    }

    /// Wraps a statement `database` prepared earlier from `sql` and kept for reuse (reset, unbound).
    init(database: Database, sql: String, reusing handle: OpaquePointer) {
        self.database = database
        self.sql = sql
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets and unbinds the statement and gives up its handle, for the database's cache; this object
    /// is unusable afterwards.
    func detachForReuse() -> OpaquePointer? {
        guard let handle else { return nil }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        self.handle = nil
        return handle
    }

    private static func isBlank(_ text: UnsafePointer<CChar>) -> Bool {
        var pointer = text
        while pointer.pointee != 0 {
            switch UInt8(bitPattern: pointer.pointee) {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ";"):
                pointer += 1
            default:
                return false
            }
        }
        return true
    }

    func liveHandle() throws -> OpaquePointer {
        guard let handle, database.isOpen else {
            throw SQLiteError.misuse("statement used after its database was closed", sql: sql)
        }
        return handle
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw SQLiteError(handle: database.handle, code: code, sql: sql)
        }
    }

    // MARK: Binding

    /// Number of parameters the SQL declares.
    public var parameterCount: Int {
        handle.map { Int(sqlite3_bind_parameter_count($0)) } ?? 0
    }

    /// Binds `value` to the parameter at `index`, counting from 1 as SQLite does.
    public func bind(_ value: SQLValue, at index: Int) throws {
        let handle = try liveHandle()
        guard index >= 1, index <= parameterCount, let position = Int32(exactly: index) else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "no parameter at index \(index) (statement has \(parameterCount))",
                sql: sql)
        }
        try check(Statement.bind(value, at: position, in: handle))
    }

    /// Binds `value` to a named parameter; `name` may include its prefix (`:id`) or not (`id`).
    public func bind(_ value: SQLValue, to name: String) throws {
        let handle = try liveHandle()
        let candidates =
            [":", "@", "$"].contains(where: name.hasPrefix) ? [name] : [":" + name, "@" + name, "$" + name]
        for candidate in candidates {
            let position = sqlite3_bind_parameter_index(handle, candidate)
            if position > 0 {
                try check(Statement.bind(value, at: position, in: handle))
                return
            }
        }
        throw SQLiteError(code: SQLITE_RANGE, message: "no parameter named \(name)", sql: sql)
    }

    /// Binds positional values, first to `?1`; the count must match the statement's.
    public func bind(_ values: [SQLValue]) throws {
        guard values.count == parameterCount else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "statement has \(parameterCount) parameters, \(values.count) given",
                sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    public func bind(named values: [String: SQLValue]) throws {
        for (name, value) in values {
            try bind(value, to: name)
        }
    }

    private static func bind(_ value: SQLValue, at position: Int32, in handle: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(handle, position)
        case .integer(let integer):
            return sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            return sqlite3_bind_double(handle, position, real)
        case .text(var text):
            // Explicit byte length: text containing NUL is stored whole. An empty string must not
            // become a NULL pointer, which SQLite would bind as NULL.
            return text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return sqlite3_bind_text(handle, position, "", 0, har_sqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    sqlite3_bind_text64(
                        handle, position, chars, sqlite3_uint64(bytes.count), har_sqlite_transient(),
                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            // Same for blobs: a zero-length blob, not NULL.
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, position, 0) }
            return bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob64(
                    handle, position, raw.baseAddress, sqlite3_uint64(raw.count), har_sqlite_transient())
            }
        }
    }

    /// Unbinds every parameter (sets them to NULL).
    public func clearBindings() throws {
        try check(sqlite3_clear_bindings(try liveHandle()))
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let handle = try liveHandle()
        if sqlite3_stmt_busy(handle) == 0 { StatementCounts.process.starting(handle) }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(handle: database.handle, code: code, sql: sql)
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() throws {
        // sqlite3_reset repeats the last step's error; that error was already thrown by step().
        sqlite3_reset(try liveHandle())
    }

    /// Steps through every remaining row and collects them.
    public func rows() throws -> [Row] {
        // The columns' names are read when a first row comes: a query that finds nothing (most of
        // the list page's notices and receipts) made a dictionary of them for nothing.
        guard try step() else { return [] }
        let columns = resultColumns
        let count = columns.names.count
        var rows: [Row] = []
        repeat {
            // The handle is live (step just succeeded) and every index is below the column count, so
            // the values are read directly rather than through value(at:) and its checks.
            let handle = try liveHandle()
            var values: [SQLValue] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                values.append(Statement.columnValue(handle, Int32(index)))
            }
            rows.append(Row(columns: columns, values: values))
        } while try step()
        return rows
    }

    /// Appends the current row's cells to `builder` as text, one per column (see `Database.queryText`).
    /// Call only after `step()` returned true.
    func appendTextCells(to builder: inout TextTable.Builder) {
        guard let handle else { return }
        let count = sqlite3_column_count(handle)
        var position: Int32 = 0
        while position < count {
            // The column's value, then its text and length from the value: one call per cell that
            // enters the statement (sqlite3_column_text and sqlite3_column_bytes each check the
            // statement and the column and clean up after, ~65 instructions a call; the value
            // functions do not). Connections are opened SQLITE_OPEN_NOMUTEX (multi-thread mode), in
            // which SQLite documents protected and unprotected values as interchangeable, so the
            // value sqlite3_column_value returns may be read with sqlite3_value_text. The pointer
            // first, then the length, as SQLite documents; the length (not a NUL) bounds the text.
            // No pointer means NULL, or (rarely) an empty blob or a failed conversion: only then is
            // the type asked.
            let value = sqlite3_column_value(handle, position)
            if let pointer = sqlite3_value_text(value) {
                let length = Int(sqlite3_value_bytes(value))
                builder.append(UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: length))
            } else if sqlite3_value_type(value) == SQLITE_NULL {
                builder.append(nil as UnsafeRawBufferPointer?)
            } else {
                builder.append(UnsafeRawBufferPointer(start: nil, count: 0))
            }
            position += 1
        }
    }

    // MARK: Columns

    public var columnCount: Int {
        handle.map { Int(sqlite3_column_count($0)) } ?? 0
    }

    public var columnNames: [String] {
        guard let handle else { return [] }
        return (0..<sqlite3_column_count(handle)).map { index in
            sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
        }
    }

    /// The index of the result column called `name`; the first one when several share it.
    public func columnIndex(named name: String) throws -> Int {
        guard let index = resultColumns.index(named: name) else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message: "no column named \(name) (columns: \(columnNames.joined(separator: ", ")))",
                sql: sql)
        }
        return index
    }

    private func column(_ index: Int) throws -> (OpaquePointer, Int32) {
        let handle = try liveHandle()
        guard index >= 0, index < columnCount else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "no column at index \(index) (statement has \(columnCount))", sql: sql)
        }
        return (handle, Int32(index))
    }

    /// The current row's value at `index` (from 0), in its stored type.
    public func value(at index: Int) throws -> SQLValue {
        let (handle, position) = try column(index)
        return Statement.columnValue(handle, position)
    }

    private static func columnValue(_ handle: OpaquePointer, _ position: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, position) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, position))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, position))
        case SQLITE_BLOB:
            // Ask for the pointer before the length, as SQLite documents.
            let pointer = sqlite3_column_blob(handle, position)
            let count = Int(sqlite3_column_bytes(handle, position))
            guard let pointer, count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            let pointer = sqlite3_column_text(handle, position)
            let count = Int(sqlite3_column_bytes(handle, position))
            guard let pointer, count > 0 else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        }
    }

    public func value(named name: String) throws -> SQLValue {
        try value(at: try columnIndex(named: name))
    }
    // The typed reads of the current row (`int`, `string`, `isNull`, …) are `ValueReading`'s; those by
    // position are read straight from the statement (Statement+TypedReads.swift).
}

@available(*, unavailable)
extension Statement: Sendable {}
