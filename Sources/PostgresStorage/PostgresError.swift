// PostgresStorage: the libpq skin (connection, parameterised queries with typed results, transactions
// at SERIALIZABLE with retry, advisory locks, a connection pool, migrations under an advisory lock).
// This target is the only place that talks to libpq; the app's PostgreSQL stores sit on it.
import CPostgreSQL

/// A failure reported by PostgreSQL or libpq, with enough context to act on it.
///
/// Like `SQLiteError`, it keeps the statement's SQL (with its `$n` placeholders) and never a bound value.
/// PostgreSQL's DETAIL field (which repeats key values: `Key (email)=(…) already exists`) is left out,
/// and so is the primary message of a data exception (class 22), which quotes the offending input.
public struct PostgresError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The five-character SQLSTATE (`40001`, `23505`, …); nil for a failure on the client's side
    /// (no connection, a lost connection, misuse of this wrapper).
    public let sqlState: String?
    public let message: String
    /// The statement being run, if any.
    public let sql: String?

    public init(sqlState: String?, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    public var description: String {
        let state = sqlState.map { " (SQLSTATE \($0))" } ?? ""
        if let sql { return "PostgreSQL error: \(message)\(state) in: \(sql)" }
        return "PostgreSQL error: \(message)\(state)"
    }

    /// A SERIALIZABLE transaction lost to a concurrent one (40001) or a deadlock was broken (40P01):
    /// the whole transaction may simply run again.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// A UNIQUE, NOT NULL, CHECK, FOREIGN KEY or exclusion constraint refused the change (class 23).
    public var isConstraintViolation: Bool { sqlState?.hasPrefix("23") ?? false }
    /// The server could not be reached or the connection broke (class 08, 57P01 admin shutdown, or no
    /// SQLSTATE at all from libpq).
    public var isConnectionFailure: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
    }

    static func misuse(_ message: String, sql: String? = nil) -> PostgresError {
        PostgresError(sqlState: nil, message: message, sql: sql)
    }
}

extension PostgresError {
    /// The error a failed result carries.
    init(result: OpaquePointer?, connection: OpaquePointer?, sql: String?) {
        let sqlState = result.flatMap { PQresultErrorField($0, har_pg_diag_sqlstate()) }.map { String(cString: $0) }
        var message =
            result.flatMap { PQresultErrorField($0, har_pg_diag_message_primary()) }.map { String(cString: $0) }
            ?? PostgresError.connectionMessage(connection)
        if sqlState?.hasPrefix("22") ?? false {
            message = "a value was refused (data exception)"
        }
        self.init(sqlState: sqlState, message: message, sql: sql)
    }

    /// libpq's message for the connection's last failure, first line only.
    static func connectionMessage(_ connection: OpaquePointer?) -> String {
        guard let connection, let text = PQerrorMessage(connection) else { return "no connection" }
        let message = String(cString: text).split(separator: "\n").first.map(String.init) ?? ""
        return message.isEmpty ? "connection failed" : message
    }
}
