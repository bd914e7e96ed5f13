import CPostgreSQL
import Glibc
import SQLCore

/// One libpq connection.
///
/// Not `Sendable`: a connection is used by one thread at a time (`PostgresPool` hands them out under its
/// lock). libpq is thread-safe in the sense that matters (`PQisthreadsafe()` is 1): two connections may
/// be used on two threads at once.
///
/// Statements take SQLite-style `?` placeholders (or PostgreSQL's `$n`) and `SQLValue` parameters,
/// always bound, never interpolated: integers are sent as `bigint`, doubles as `double precision`,
/// blobs as `bytea` in binary, text untyped (PostgreSQL infers its type from where it is used).
public final class PostgresConnection {
    private var handle: OpaquePointer?
    /// Statements prepared on this connection, by their text and parameter types: the server parses and
    /// plans a statement sent unnamed every time (on the list page, about nine tenths of the server's
    /// time went to that), a prepared one once (and then after a few runs keeps a generic plan).
    private var prepared: [PreparedKey: (name: String, sql: String)] = [:]
    private var preparedCount = 0
    /// The most statements one connection keeps prepared; past it, statements are sent unnamed (the
    /// application's texts are fewer; an `IN` list of varying length makes one text per length).
    public static let preparedLimit = 512

    /// Connects with a `postgresql://…` URL or a libpq `key=value` string. The string is never part of an
    /// error (it may hold a password).
    public init(_ connectionString: String) throws {
        try ConnectionString.validate(connectionString)
        let handle = PQconnectdb(connectionString)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = PostgresError.connectionMessage(handle)
            PQfinish(handle)
            throw PostgresError(sqlState: "08001", message: "cannot connect to PostgreSQL: \(message)")
        }
        self.handle = handle
        // NOTICEs (`CREATE TABLE IF NOT EXISTS` on an existing table, …) would go to stderr: dropped.
        PQsetNoticeReceiver(handle, { _, _ in }, nil)
    }

    deinit { close() }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// True while the connection is open and usable (not closed, not broken).
    public var isUsable: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// False when the server has closed the connection since its last use (stopped, restarted):
    /// reads whatever its socket holds, without waiting. An idle connection's socket holds nothing
    /// unless the server said goodbye: an error message, then the end of the stream. One
    /// `PQconsumeInput` reads the message but may not reach the end, and the connection still looks
    /// open (after `pg_ctl stop -m immediate`, every time): so it reads while the socket has more.
    public var isStillOpen: Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        var poller = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        for _ in 0..<4 {
            poller.revents = 0
            guard poll(&poller, 1, 0) > 0 else { return true }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { return false }
        }
        return true
    }

    /// True when no transaction is open (or the last one failed and was not ended).
    public var isIdle: Bool {
        guard let handle else { return true }
        return PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// The server's version as a number (150018 for 15.18).
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    private func liveHandle(sql: String?) throws -> OpaquePointer {
        guard let handle else { throw PostgresError.misuse("connection used after it was closed", sql: sql) }
        return handle
    }

    // MARK: Running

    /// Runs a script of statements without parameters (migrations, transaction control).
    public func execute(_ script: String) throws {
        let handle = try liveHandle(sql: script)
        let result = PQexec(handle, script)
        defer { PQclear(result) }
        try check(result, handle: handle, sql: script)
    }

    /// Runs one statement and returns the number of rows it changed (INSERT, UPDATE, DELETE).
    @discardableResult
    public func run(_ sql: String, _ parameters: SQLValue...) throws -> Int {
        try run(sql, parameters)
    }

    @discardableResult
    public func run(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try withResult(sql, parameters) { result in
            guard let text = PQcmdTuples(result) else { return 0 }
            return Int(String(cString: text)) ?? 0
        }
    }

    /// Every row of a query.
    public func query(_ sql: String, _ parameters: SQLValue...) throws -> [PostgresRow] {
        try query(sql, parameters)
    }

    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> [PostgresRow] {
        try withResult(sql, parameters) { result in Self.rows(of: result) }
    }

    /// Every row of a query, each made into a value by `transform`.
    public func query<T>(_ sql: String, _ parameters: [SQLValue] = [], map transform: (PostgresRow) throws -> T)
        throws -> [T]
    {
        try query(sql, parameters).map(transform)
    }

    /// The first column of the first row, or `.null` when the query returns no row.
    public func scalar(_ sql: String, _ parameters: SQLValue...) throws -> SQLValue {
        try scalar(sql, parameters)
    }

    public func scalar(_ sql: String, _ parameters: [SQLValue]) throws -> SQLValue {
        try query(sql, parameters).first?.value(at: 0) ?? .null
    }

    private func check(_ result: OpaquePointer?, handle: OpaquePointer, sql: String) throws {
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw PostgresError(result: result, connection: handle, sql: sql)
        }
    }

    /// Sends the statement with its parameters and hands the successful result to `body`: prepared on
    /// this connection the first time (one more round trip, once), run by name afterwards.
    private func withResult<T>(_ written: String, _ parameters: [SQLValue], _ body: (OpaquePointer) throws -> T)
        throws -> T
    {
        guard let handle else {
            throw PostgresError.misuse("connection used after it was closed", sql: Placeholders.numbered(written))
        }
        var encoded = Parameters(parameters)
        defer { encoded.free() }
        let key = PreparedKey(sql: written, types: encoded.types)
        let statement = try prepared[key] ?? prepare(key, handle: handle)
        let sql = statement?.sql ?? Placeholders.numbered(written)
        let result = encoded.withArrays { types, values, lengths, formats in
            if let name = statement?.name {
                return PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 0)
            }
            return PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        do {
            try check(result, handle: handle, sql: sql)
        } catch let error as PostgresError where error.sqlState == "0A000" && statement != nil {
            // "cached plan must not change result type": another node's migration changed a table under
            // a prepared statement. Prepared afresh next time.
            prepared[key] = nil
            throw error
        }
        guard let result else { throw PostgresError.misuse("no result", sql: sql) }
        return try body(result)
    }

    /// Prepares the statement under a new name; nil (sent unnamed) once the connection has prepared
    /// `preparedLimit` statements.
    private func prepare(_ key: PreparedKey, handle: OpaquePointer) throws -> (name: String, sql: String)? {
        guard preparedCount < Self.preparedLimit else { return nil }
        preparedCount += 1
        let name = "har_\(preparedCount)"
        let sql = Placeholders.numbered(key.sql)
        let result = key.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, sql, Int32(key.types.count), types.baseAddress)
        }
        defer { PQclear(result) }
        try check(result, handle: handle, sql: sql)
        prepared[key] = (name, sql)
        return (name, sql)
    }

    // MARK: Results

    private static func rows(of result: OpaquePointer) -> [PostgresRow] {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        let columns = ResultColumns(
            names: (0..<columnCount).map { PQfname(result, $0).map { String(cString: $0) } ?? "" })
        let types = (0..<columnCount).map { PQftype(result, $0) }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(value(result, row, column, type: types[Int(column)]))
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        return rows
    }

    /// Type OIDs (pg_type.dat) of the columns read as something other than text.
    enum TypeOID {
        static let bool: Oid = 16
        static let bytea: Oid = 17
        static let int8: Oid = 20
        static let int2: Oid = 21
        static let int4: Oid = 23
        static let oid: Oid = 26
        static let float4: Oid = 700
        static let float8: Oid = 701
        static let numeric: Oid = 1700
    }

    private static func value(_ result: OpaquePointer, _ row: Int32, _ column: Int32, type: Oid) -> SQLValue {
        if PQgetisnull(result, row, column) != 0 { return .null }
        let length = Int(PQgetlength(result, row, column))
        guard let pointer = PQgetvalue(result, row, column) else { return .null }
        let text = pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        switch type {
        case TypeOID.bool:
            return .integer(text == "t" ? 1 : 0)
        case TypeOID.int8, TypeOID.int2, TypeOID.int4, TypeOID.oid:
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        case TypeOID.float4, TypeOID.float8, TypeOID.numeric:
            return Double(text).map(SQLValue.real) ?? .text(text)
        case TypeOID.bytea:
            return hexBytes(text).map(SQLValue.blob) ?? .text(text)
        default:
            return .text(text)
        }
    }

    /// `bytea` in its text form, `\x` and two hex digits a byte (PostgreSQL's default output).
    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"),
            digits.count % 2 == 0
        else { return nil }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2 - 1)
        var index = 2
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// A statement as prepared: its text as written and the types its parameters were sent with (a null
/// is sent untyped, so the same text with a null in another place is another statement).
private struct PreparedKey: Hashable {
    let sql: String
    let types: [Oid]
}

/// The C arrays `PQexecParams` takes, made from `SQLValue`s; `free()` releases them.
private struct Parameters {
    var types: [Oid] = []
    var values: [UnsafeMutablePointer<CChar>?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []

    init(_ parameters: [SQLValue]) {
        for parameter in parameters {
            switch parameter {
            case .null:
                append(type: 0, nil)
            case .integer(let integer):
                append(type: PostgresConnection.TypeOID.int8, Array(String(integer).utf8))
            case .real(let real):
                append(type: PostgresConnection.TypeOID.float8, Array(Self.text(of: real).utf8))
            case .text(let text):
                append(type: 0, Array(text.utf8))
            case .blob(let bytes):
                append(type: PostgresConnection.TypeOID.bytea, bytes, binary: true)
            }
        }
    }

    /// PostgreSQL's spelling of a double: Swift's shortest round-trip digits, and its own words for
    /// the special values.
    static func text(of real: Double) -> String {
        if real.isNaN { return "NaN" }
        if real.isInfinite { return real < 0 ? "-Infinity" : "Infinity" }
        return "\(real)"
    }

    private mutating func append(type: Oid, _ bytes: [UInt8]?, binary: Bool = false) {
        types.append(type)
        formats.append(binary ? 1 : 0)
        guard let bytes else {
            values.append(nil)
            lengths.append(0)
            return
        }
        // Text parameters end with a NUL (libpq reads them as C strings); binary ones go by length.
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress { buffer.update(from: base, count: bytes.count) }
            }
        }
        buffer[bytes.count] = 0
        values.append(buffer)
        lengths.append(Int32(bytes.count))
    }

    func withArrays<T>(
        _ body: (
            UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        let constValues = values.map { UnsafePointer($0) }
        return types.withUnsafeBufferPointer { types in
            constValues.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    mutating func free() {
        for value in values { value?.deallocate() }
        values.removeAll()
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
