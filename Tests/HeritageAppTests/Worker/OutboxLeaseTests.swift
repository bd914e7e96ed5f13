import Foundation
import PostgresStorage
import Testing

@testable import HeritageApp

/// The worker's leases on PostgreSQL: claims from several nodes never overlap, and a lapsed
/// lease is taken over and fenced.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct OutboxLeaseTests {
    /// A database with the leases' columns and `count` queued reports of one user.
    static func outbox(reports count: Int) throws -> String {
        let url = try PostgresCluster.migratedDatabase()
        let connection = try PostgresConnection(url)
        defer { connection.close() }
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
        let database = try PostgresDatabase(url: url, poolSize: 2, migrations: AppMigrations.postgres)
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

/// The worker's leases and the fence of the outbox's transitions, on both backends.
@Suite struct OutboxLeaseConformanceTests {
    /// A node whose lease lapsed and was taken over writes nothing; the new holder goes on, and knows
    /// it took the report over mid-transfer.
    @Test(arguments: StoreBackend.all) func aTakenOverLeaseFencesTheOldHoldersTransitions(backend: StoreBackend)
        throws
    {
        let scene = try StoreScene(backend)
        let (outbox, leases) = (scene.stores.outbox, scene.stores.leases)
        let userID = try scene.user("a@example.org")
        let (id, _) = try scene.queuedReport(userID: userID)
        let first = try #require(try leases.claim(node: "a", now: scene.now, duration: 60, limit: 4).first)
        #expect(first.reportID == id && first.takenOverFrom == nil)
        #expect(try leases.claim(node: "b", now: scene.now, duration: 60, limit: 4).isEmpty, "held by a")
        #expect(try outbox.beginCreate(id, lease: first))
        #expect(try outbox.report(id: id)?.state == .creating)

        // a is paused past its lease: b takes the report over mid-transfer, with a higher epoch.
        let second = try #require(try leases.claim(node: "b", now: scene.now + 61, duration: 60, limit: 4).first)
        #expect(second.reportID == id && second.epoch == first.epoch + 1 && second.takenOverFrom == "a")
        #expect(throws: LeaseLost.self) { try outbox.recordCreated(id, platformReportID: "P1", lease: first) }
        #expect(throws: LeaseLost.self) { try outbox.recordRetry(id, error: "x", nextAttemptAt: 0, lease: first) }
        #expect(try outbox.report(id: id)?.platformReportID == nil, "a wrote nothing")
        #expect(try outbox.report(id: id)?.state == .creating)
        #expect(try outbox.recordCreated(id, platformReportID: "P1", lease: second))
        let photos = try outbox.photos(reportID: id)
        #expect(throws: LeaseLost.self) { try outbox.beginPhoto(photos[0].id, reportID: id, lease: first) }
        #expect(try outbox.beginPhoto(photos[0].id, reportID: id, lease: second))
        #expect(throws: LeaseLost.self) {
            try outbox.recordPhotoStored(photos[0].id, reportID: id, platformPhotoID: "F1", lease: first)
        }
        #expect(try outbox.photos(reportID: id)[0].state == .uploading, "a wrote nothing")

        // b restarts after a crash: its leases are given up at once, not after they lapse.
        #expect(try leases.releaseLeft(node: "b") == 1)
        #expect(try !leases.holds(second, now: scene.now))
        let third = try #require(try leases.claim(node: "b", now: scene.now, duration: 60, limit: 4).first)
        #expect(third.epoch == second.epoch + 1 && third.takenOverFrom == nil)
        #expect(try leases.release(third))
        #expect(try !leases.release(second), "fenced")
    }
}

extension OutboxLeaseConformanceTests {
    /// What the worker shares across nodes instead of keeping per process: a gate one node at a time
    /// holds (until its time passes, or a restart of its node frees it), and the refused sessions.
    @Test(arguments: StoreBackend.all) func gatesAndRefusedSessionsAreShared(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let leases = scene.stores.leases
        let now = scene.now
        #expect(leases.isShared == (backend.name == "PostgreSQL"), "SQLite: one process, in-process gates")
        #expect(try leases.takeGate("photo_sweep", holder: "a", now: now, until: now + 50))
        #expect(try !leases.takeGate("photo_sweep", holder: "b", now: now + 10, until: now + 60), "a's turn")
        #expect(try leases.takeGate("photo_sweep", holder: "b", now: now + 50, until: now + 100), "a's time passed")
        #expect(try leases.takeGate("1 abc", holder: "a 7", now: now, until: now + 50))
        #expect(try !leases.takeGate("1 abc", holder: "b 8", now: now, until: now + 50))
        try leases.releaseGate("1 abc", holder: "b 8")
        #expect(try !leases.takeGate("1 abc", holder: "b 8", now: now, until: now + 50), "only its holder frees it")
        _ = try leases.releaseLeft(node: "a")
        #expect(try leases.takeGate("1 abc", holder: "b 8", now: now, until: now + 50), "a restarted: freed")
        try leases.releaseGate("1 abc", holder: "b 8")
        #expect(try leases.takeGate("1 abc", holder: "c 9", now: now, until: now + 50))

        let userID = try scene.user("a@example.org")
        #expect(try leases.refusedSession(userID: userID) == nil)
        try leases.recordRefusedSession(userID: userID, fingerprint: "f1", now: now)
        try leases.recordRefusedSession(userID: userID, fingerprint: "f2", now: now + 1)
        #expect(try leases.refusedSession(userID: userID) == "f2")
    }
}

extension OutboxLeaseConformanceTests {
    /// The worker's side: before a platform call the keeper makes sure the lease outlasts the call's
    /// timeout, renewing it when it would not; once another node has the report it throws `LeaseLost`
    /// (no call starts), and stays lost.
    @Test(arguments: StoreBackend.all) func noCallStartsThatWouldOutlastTheLease(backend: StoreBackend) async throws {
        let scene = try StoreScene(backend)
        let leases = scene.stores.leases
        let userID = try scene.user("a@example.org")
        _ = try scene.queuedReport(userID: userID)
        let now = Date().timeIntervalSince1970
        // A lease with 10 s left, of 30 s when renewed.
        let lease = try #require(try leases.claim(node: "a", now: now - 20, duration: 30, limit: 1).first)
        let keeper = LeaseKeeper(lease, queue: OutboxQueue(scene.stores.outbox, leases: leases), duration: 30)
        try await keeper.ensure(5)
        #expect(keeper.lease.until == lease.until, "10 s left cover a 5 s call: no renewal")
        try await keeper.ensure(20)
        #expect(keeper.lease.until >= now + 29, "renewed before a call that would outlast it")

        // Taken over (its lease made to lapse, as a pause would): the next call does not start.
        let taken = try #require(try leases.claim(node: "b", now: now + 31, duration: 60, limit: 1).first)
        #expect(taken.takenOverFrom == nil, "queued, not mid-transfer")
        await #expect(throws: LeaseLost.self) { try await keeper.ensure(40) }
        await #expect(throws: LeaseLost.self) { try await keeper.ensure(1) }
    }
}

extension OutboxLeaseConformanceTests {
    /// A report whose create gate another report's live lease holds is handed back (nothing else
    /// changes) and passed over by the claim while another user's report is claimed; once the holder's
    /// lease lapses, the gate is taken over and the report claimed again.
    @Test(arguments: StoreBackend.all) func aReportWhoseCreateGateIsHeldIsPassedOver(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let (outbox, leases) = (scene.stores.outbox, scene.stores.leases)
        let (now, gate) = (scene.now, "gate of two identical reports")
        let userID = try scene.user("a@example.org")
        let first = try scene.queuedReport(userID: userID, name: "Chapel").id
        let twin = try scene.queuedReport(userID: userID, name: "Chapel").id
        let other = try scene.queuedReport(userID: try scene.user("b@example.org", token: 2), name: "Barn").id

        // Node a creates the first report, holding its gate; node b claims its twin and finds the gate held.
        let holder = try #require(try leases.claim(node: "a", now: now, duration: 60, limit: 1).first)
        #expect(holder.reportID == first)
        #expect(try leases.takeCreateGate(gate, lease: holder, now: now))
        let refused = try #require(try leases.claim(node: "b", now: now, duration: 60, limit: 1).first)
        #expect(refused.reportID == twin)
        #expect(try !leases.takeCreateGate(gate, lease: refused, now: now + 1), "held by a's live lease")
        let before = try #require(try outbox.report(id: twin))
        #expect(try leases.handBack(refused, gate: gate))
        let after = try #require(try outbox.report(id: twin))
        #expect(after.state == before.state && after.attempts == before.attempts, "no attempt counted")
        #expect(after.nextAttemptAt == before.nextAttemptAt && after.lastError == before.lastError, "no backoff")
        #expect(
            try scene.stores.review.deliveryAttempts(reportID: twin, limit: 50).isEmpty, "no delivery attempt recorded")
        #expect(try !leases.holds(refused, now: now + 1), "its lease is given back")

        // b's next claim passes the twin over and takes the other user's report.
        let next = try leases.claim(node: "b", now: now + 2, duration: 200, limit: 5)
        #expect(next.map(\.reportID) == [other])
        #expect(try leases.claim(node: "c", now: now + 30, duration: 60, limit: 5).isEmpty, "renewed holder")
        #expect(try leases.renew(holder, now: now + 30, duration: 60), "until now + 90")
        #expect(try leases.claim(node: "c", now: now + 70, duration: 60, limit: 5).isEmpty, "the gate lives with it")

        // a's lease lapses (a paused or dead): the twin is claimed, and its gate taken over.
        let taken = try leases.claim(node: "c", now: now + 91, duration: 60, limit: 5)
        #expect(Set(taken.map(\.reportID)) == [first, twin], "both come back; other is b's still")
        let twinLease = try #require(taken.first { $0.reportID == twin })
        #expect(try leases.takeCreateGate(gate, lease: twinLease, now: now + 92), "a's gate lapsed with its lease")
        let firstLease = try #require(taken.first { $0.reportID == first })
        #expect(try !leases.takeCreateGate(gate, lease: firstLease, now: now + 92), "now the twin's")
        try leases.releaseCreateGate(gate, lease: firstLease)
        #expect(try !leases.takeCreateGate(gate, lease: firstLease, now: now + 92), "only its holder frees it")
        try leases.releaseCreateGate(gate, lease: twinLease)
        #expect(try leases.takeCreateGate(gate, lease: firstLease, now: now + 93), "freed by its holder")
        #expect(try !leases.takeCreateGate(gate, lease: holder, now: now + 93), "a's old epoch holds nothing")
    }

    /// A gate given up with its lease (the task ended, the node restarted) frees a handed-back report
    /// at once, whatever time the gate's row says.
    @Test(arguments: StoreBackend.all) func aGateEndsWithItsHoldersLease(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let leases = scene.stores.leases
        let (now, gate) = (scene.now, "g")
        let userID = try scene.user("a@example.org")
        _ = try scene.queuedReport(userID: userID, name: "Chapel")
        let twin = try scene.queuedReport(userID: userID, name: "Chapel").id
        let holder = try #require(try leases.claim(node: "a", now: now, duration: 60, limit: 1).first)
        #expect(try leases.takeCreateGate(gate, lease: holder, now: now))
        let refused = try #require(try leases.claim(node: "b", now: now, duration: 60, limit: 1).first)
        #expect(try leases.handBack(refused, gate: gate))
        #expect(try leases.claim(node: "b", now: now + 1, duration: 60, limit: 1).isEmpty)
        #expect(try leases.release(holder), "a's task ended without freeing the gate (a crash in between)")
        #expect(try leases.claim(node: "b", now: now + 2, duration: 60, limit: 2).map(\.reportID).contains(twin))
    }
}
