import SQLiteStorage

/// `SignInLimitStore`, once for both databases: the `signin_failures` table (migration 5), shared by
/// every node on a PostgreSQL database, so a guesser gains nothing by spreading guesses over nodes; two
/// nodes counting a failure of one key at once both count (each write one SERIALIZABLE transaction).
struct SQLSignInLimitStore<Backend: SQLBackend>: SignInLimitStore {
    let database: Backend

    func failures(keys: [String], forgetBefore: Double) throws -> [String: SignInFailures] {
        guard !keys.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
        let rows = try database.read { db in
            try db.query(
                "SELECT key, failures, last_at FROM signin_failures WHERE last_at > ? AND key IN (\(marks))",
                [.real(forgetBefore)] + keys.map { .text($0) })
        }
        return try Backend.mapped {
            var found: [String: SignInFailures] = [:]
            for row in rows {
                guard let key = try row.string("key"), let count = try row.int("failures"),
                    let last = try row.double("last_at")
                else { continue }
                found[key] = SignInFailures(count: Int(count), lastAt: last)
            }
            return found
        }
    }

    func recordFailure(keys: [String], now: Double, forgetBefore: Double) throws {
        try database.write { db in
            for key in keys {
                _ = try db.run(
                    """
                    INSERT INTO signin_failures (key, failures, last_at) VALUES (?, 1, ?)
                    ON CONFLICT (key) DO UPDATE SET
                        failures = CASE WHEN signin_failures.last_at > ? THEN signin_failures.failures + 1 ELSE 1 END,
                        last_at = excluded.last_at
                    """, .text(key), .real(now), .real(forgetBefore))
            }
            // Housekeeping rides on failures: the table holds only the recent ones.
            _ = try db.run("DELETE FROM signin_failures WHERE last_at <= ?", .real(forgetBefore))
        }
    }

    func clear(keys: [String]) throws {
        try database.write { db in
            for key in keys { _ = try db.run("DELETE FROM signin_failures WHERE key = ?", .text(key)) }
        }
    }
}
