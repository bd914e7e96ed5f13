import Foundation
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The stores' e-mail look-ups keep one SQL text for both engines, `lower(email) = lower(?)`, and are an
/// index search on both: SQLite's plan (`EXPLAIN QUERY PLAN`) a SEARCH using an index on `lower(email)`,
/// never a SCAN (migration 24); PostgreSQL's an index scan of `users_email` or `user_roles_email` (with
/// sequential scans turned off, as its planner prefers one on a table this small).
@Suite(.serialized) struct EmailLookupPlanTests {
    /// The shapes the stores use (`SQLUserStore`, `SQLRoles`, `SQLReviewStore`, `KioskStatements`).
    static let lookups = [
        "SELECT id FROM users WHERE lower(email) = lower(?)",
        "SELECT account_id FROM users WHERE lower(email) = lower(?) AND kiosk_id IS NULL",
        "SELECT role FROM user_roles WHERE lower(email) = lower(?) AND account_id IS NOT NULL",
        "SELECT role, account_id, first_signin_account FROM user_roles WHERE lower(email) = lower(?)",
        "DELETE FROM user_roles WHERE lower(email) = lower(?)",
    ]

    static func parameters(_ sql: String) -> [SQLValue] {
        Array(repeating: .text("Ann@Example.org"), count: sql.filter { $0 == "?" }.count)
    }

    @Test func sqliteSearchesAnIndexOnLowerEmail() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stores = try Stores.sqlite(path: folder + "/har.sqlite")
        stores.close()
        let database = try Database(path: folder + "/har.sqlite", create: false)
        for sql in Self.lookups {
            // detail is the plan row's fourth column: "SEARCH users USING INDEX users_email_lower (<expr>=?)".
            let plan = try database.query("EXPLAIN QUERY PLAN " + sql, Self.parameters(sql)).map {
                $0.values[3].string ?? ""
            }
            #expect(plan.contains { $0.hasPrefix("SEARCH") && $0.contains("_email_lower") }, "\(sql): \(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(sql): \(plan)")
        }
    }

    @Test func postgresScansAnIndexOnLowerEmail() throws {
        guard let connection = try PostgresCluster.migratedConnection("EmailLookupPlanTests") else { return }
        defer { connection.close() }
        try connection.execute("SET enable_seqscan = off")
        for sql in Self.lookups {
            let plan = try connection.query("EXPLAIN " + sql, Self.parameters(sql)).map { $0.values[0].string ?? "" }
            #expect(plan.contains { $0.contains("Index") && $0.contains("_email") }, "\(sql): \(plan)")
            #expect(!plan.contains { $0.contains("Seq Scan") }, "\(sql): \(plan)")
        }
    }
}
