import Foundation
import PostgresStorage
import Testing

@testable import HeritageApp

/// The worker's leases on PostgreSQL (issue 13): claims from several nodes never overlap, and a lapsed
/// lease is taken over and fenced.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct OutboxLeaseTests {
    /// A database with the leases' columns and `count` queued reports of one user.
    static func outbox(reports count: Int) throws -> String {
        let url = try PostgresCluster.shared().makeDatabase()
        let stores = try Stores.postgres(url: url, poolSize: 1)
        stores.close()
        let connection = try PostgresConnection(url)
        try connection.execute(PostgresOutboxLeases.migrationSQL)
        try connection.run(
            "INSERT INTO users (email, created_at, updated_at) VALUES ('a@example.org', 0, 0)")
        try connection.run(
            """
            INSERT INTO reports (user_id, local_id, state, creation_time, submitted_at, updated_at)
            SELECT (SELECT id FROM users), 'report-' || g, 'queued', g, g, 0 FROM generate_series(1, ?) g
            """, .integer(Int64(count)))
        return url
    }

    static func leases(_ url: String) throws -> (PostgresDatabase, PostgresOutboxLeases) {
        let database = try PostgresDatabase(url: url, poolSize: 2, migrations: PostgresAppMigrations.all)
        return (database, PostgresOutboxLeases(database: database))
    }

    /// 3 claimers × 1,000 reports: each report is claimed exactly once, and every claimer gets some.
    @Test func threeClaimersClaimEachReportOnce() throws {
        let url = try Self.outbox(reports: 1000)
        let claimers = try (0..<3).map { _ in try Self.leases(url) }
        defer { for (database, _) in claimers { database.close() } }
        let claimed = Results<[Lease]>()
        // Three threads of their own (concurrentPerform would run as many at once as there are cores).
        let done = DispatchSemaphore(value: 0)
        for index in 0..<3 {
            let (_, leases) = claimers[index]
            Thread {
                defer { done.signal() }
                claimed.append {
                    var mine: [Lease] = []
                    while true {
                        // A long lease: nothing lapses during the test, so nothing may be claimed twice.
                        let round = try leases.claim(node: "node-\(index)", now: 1000, duration: 3600, limit: 10)
                        if round.isEmpty { return mine }
                        mine += round
                    }
                }
            }.start()
        }
        for _ in 0..<3 { done.wait() }
        #expect(claimed.errors.isEmpty, "\(claimed.errors)")
        let all = claimed.values.flatMap { $0 }
        #expect(all.count == 1000)
        #expect(Set(all.map(\.reportID)).count == 1000, "no report claimed twice")
        #expect(all.allSatisfy { $0.epoch == 1 })
    }

    /// A node paused past its lease: another takes the report over with a higher epoch; the first
    /// can neither renew nor release it any more.
    @Test func aLapsedLeaseIsTakenOverAndFenced() throws {
        let url = try Self.outbox(reports: 1)
        let (firstDatabase, first) = try Self.leases(url)
        let (secondDatabase, second) = try Self.leases(url)
        defer {
            firstDatabase.close()
            secondDatabase.close()
        }
        let lease = try #require(try first.claim(node: "a", now: 100, duration: 30, limit: 5).first)
        #expect(try second.claim(node: "b", now: 110, duration: 30, limit: 5).isEmpty, "held")
        #expect(try first.renew(lease, now: 120, duration: 30), "renewed while held: until 150")
        #expect(try second.claim(node: "b", now: 140, duration: 30, limit: 5).isEmpty, "the renewal counts")
        let takeover = try #require(try second.claim(node: "b", now: 151, duration: 30, limit: 5).first)
        #expect(takeover.reportID == lease.reportID)
        #expect(takeover.epoch == lease.epoch + 1)
        #expect(try !first.renew(lease, now: 152, duration: 30), "fenced")
        #expect(try !first.release(lease))
        #expect(try !first.holds(lease, now: 152))
        #expect(try second.holds(takeover, now: 152))
        #expect(try second.release(takeover))
        #expect(try first.claim(node: "a", now: 153, duration: 30, limit: 5).first?.epoch == lease.epoch + 2)
    }
}
