import Foundation
import PostgresStorage
import TestSupport
import Testing

@testable import HeritageApp

/// The read-then-write checks one SQLite writer made safe, run from three "nodes" at once: three sets of
/// stores, each with its own connection pool, on one PostgreSQL database. SERIALIZABLE with retry must
/// keep each check whole across them.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
final class PostgresStoreRaceTests: Sendable {
    let nodes: [Stores]
    let url: String
    let now = Date().timeIntervalSince1970.rounded(.down)

    init() throws {
        let url = try PostgresCluster.shared().makeDatabase()
        self.url = url
        nodes = try (0..<3).map { _ in try Stores.postgres(url: url, poolSize: 4) }
    }

    deinit { for node in nodes { node.close() } }

    func user(_ email: String) throws -> Int64 {
        try nodes[0].users.signIn(
            SignInRecord(
                email: email, accountID: nil, fullname: nil, platformSessionID: "s",
                platformSessionExpiresAt: now + 3600,
                tokenHash: Array(repeating: 7, count: 32), csrfToken: "c", replacingTokenHash: nil),
            now: now)
    }

    /// 30 uploads to one draft from three nodes at once: exactly 20 land, at positions 0…19.
    @Test func twentyPhotosPerDraftHoldAcrossNodes() throws {
        let userID = try user("a@example.org")
        let (draft, _) = try nodes[0].drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        let results = Results<PhotoAddResult>()
        DispatchQueue.concurrentPerform(iterations: 30) { index in
            results.append {
                try self.nodes[index % 3].drafts.addPhoto(StoreScene.photo(), to: draft, now: self.now)
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.values.filter { $0 == .full }.count == 10)
        let positions = try nodes[1].drafts.photos(reportID: draft.id).map(\.position)
        #expect(positions == Array(0..<20))
    }

    /// Nine first visits to the creation page from three nodes at once: one draft, the same for all.
    @Test func oneOpenDraftPerUserAcrossNodes() throws {
        let userID = try user("b@example.org")
        let results = Results<String>()
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            results.append {
                try self.nodes[index % 3].drafts.openDraft(userID: userID, now: self.now, freshSince: self.now - 10).0
                    .localID
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(Set(results.values).count == 1)
    }

    /// One Submit replayed on three nodes at once: queued once, the others already submitted.
    @Test func aSubmitTokenQueuesOnceAcrossNodes() throws {
        let userID = try user("c@example.org")
        let (draft, _) = try nodes[0].drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        _ = try nodes[0].drafts.addPhoto(StoreScene.photo(), to: draft, now: now)
        let results = Results<SubmitResult>()
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            results.append {
                try self.nodes[index % 3].drafts.submit(
                    draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "token-1",
                    now: self.now)
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.values.filter { $0 == .queued }.count == 1)
        #expect(results.values.filter { $0 == .alreadySubmitted }.count == 5)
        #expect(try nodes[2].outbox.countsByState()["queued"] == 1)
    }

    /// 30 failed sign-ins of one key from three nodes at once: all 30 counted (none lost to a race of
    /// the upsert), and a clear on one node is seen by the others.
    @Test func signInFailuresAddUpAcrossNodes() throws {
        let results = Results<Bool>()
        DispatchQueue.concurrentPerform(iterations: 30) { index in
            results.append {
                try self.nodes[index % 3].signInLimits.recordFailure(
                    keys: ["email:a@example.org", "ip:192.0.2.\(index % 3)"], now: self.now,
                    forgetBefore: self.now - 900)
                return true
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        let counts = try nodes[1].signInLimits.failures(
            keys: ["email:a@example.org", "ip:192.0.2.0", "ip:192.0.2.1", "ip:192.0.2.2"], forgetBefore: now - 900)
        #expect(counts["email:a@example.org"]?.count == 30)
        #expect(counts["ip:192.0.2.0"]?.count == 10)
        try nodes[2].signInLimits.clear(keys: ["email:a@example.org"])
        #expect(try nodes[0].signInLimits.failures(keys: ["email:a@example.org"], forgetBefore: now - 900).isEmpty)
    }

    /// One device report id sent to three nodes at once (a retried request): one draft, the same for all.
    @Test func aDeviceReportIsMadeOnceAcrossNodes() throws {
        let userID = try user("d@example.org")
        let localID = "0f0e0d0c-0b0a-4908-8706-050403020100"
        let results = Results<Int64>()
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            results.append {
                guard
                    case .draft(let draft) = try self.nodes[index % 3].drafts.openDeviceDraft(
                        localID: localID, userID: userID, now: self.now)
                else { return -1 }
                return draft.id
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.values.count == 9)
        #expect(Set(results.values).count == 1)
        #expect(!results.values.contains(-1))
    }

    /// Twelve submits of one user's device reports from three nodes at once: the list version moves
    /// once for each (the trigger's bump of the user's one row is never lost between nodes).
    @Test func theListVersionCountsEveryChangeAcrossNodes() throws {
        let userID = try user("e@example.org")
        func draftWithPhoto(_ index: Int) throws -> String {
            let localID = "00000000-0000-4000-8000-0000000000\(10 + index)"
            guard
                case .draft(let draft) = try nodes[0].drafts.openDeviceDraft(localID: localID, userID: userID, now: now)
            else { throw StoreError(.invariant, "no device draft") }
            _ = try nodes[0].drafts.addPhoto(StoreScene.photo(), to: draft, now: now)
            return localID
        }
        @Sendable func submit(_ localID: String, on node: Stores) throws -> SubmitResult {
            try node.drafts.submit(
                draftLocalID: localID, userID: userID, fields: StoreScene.fields, token: "token-" + localID, now: now)
        }
        // What one submit moves the version by, alone.
        let first = try draftWithPhoto(0)
        let start = try nodes[0].reports.listVersion(userID: userID)
        #expect(try submit(first, on: nodes[0]) == .queued)
        let step = try nodes[0].reports.listVersion(userID: userID) - start
        #expect(step > 0)

        let drafts = try (1...12).map(draftWithPhoto)
        let before = try nodes[0].reports.listVersion(userID: userID)
        let results = Results<SubmitResult>()
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            results.append { try submit(drafts[index], on: self.nodes[index % 3]) }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.values.filter { $0 == .queued }.count == 12)
        #expect(try nodes[1].reports.listVersion(userID: userID) == before + 12 * step)
    }
}

extension PostgresStoreRaceTests {
    func queuedReport(userID: Int64) throws -> Int64 {
        let (draft, _) = try nodes[0].drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        _ = try nodes[0].drafts.addPhoto(StoreScene.photo(), to: draft, now: now)
        _ = try nodes[0].drafts.submit(
            draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: UUID().uuidString, now: now)
        return try #require(try nodes[0].outbox.reportID(localID: draft.localID))
    }

    /// REV-07 across nodes: nine coordinators on three nodes approve one report at once; one decides,
    /// the eight others are told who did, and the audit log holds one decision.
    @Test func oneCoordinatorDecidesAcrossNodes() throws {
        let id = try queuedReport(userID: try user("f@example.org"))
        let approve = ReviewDecision(to: .approved, from: [.received, .needsInfo], action: "approve")
        let results = Results<ReviewOutcome>()
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            results.append {
                try self.nodes[index % 3].review.decide(
                    approve, id: id, actor: "c\(index)@example.org", now: self.now + Double(index))
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.values.filter { $0 == .done }.count == 1)
        let row = try #require(try nodes[2].review.row(id: id))
        let winner = try #require(row.reviewedBy)
        #expect(
            results.values.filter { $0 == .done }.count
                + results.values.filter {
                    if case .conflict(let actor, "approve", _) = $0 { return actor == winner }
                    return false
                }.count == 9)
        let decisions = try nodes[1].review.audit(
            AuditFilter(action: "approve", reportID: id), beforeID: nil, limit: 20)
        #expect(decisions.map(\.actor) == [winner])
    }

    /// Nine coordinators claim one report from three nodes at once: one claim holds.
    @Test func oneClaimHoldsAcrossNodes() throws {
        let id = try queuedReport(userID: try user("g@example.org"))
        let results = Results<ReviewOutcome>()
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            results.append {
                try self.nodes[index % 3].review.claim(
                    id: id, actor: "c\(index)@example.org", now: self.now, until: self.now + 1800)
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        #expect(results.values.filter { $0 == .done }.count == 1)
        #expect(
            try nodes[0].review.audit(AuditFilter(action: "claim", reportID: id), beforeID: nil, limit: 20).count == 1)
    }

    /// REV-08 on PostgreSQL: the audit log's rows cannot be changed or removed, even by hand in SQL.
    @Test func theAuditLogIsAppendOnlyInTheDatabase() throws {
        try nodes[0].review.appendAudit(AuditEntry(at: now, actor: "a@example.org", action: "export_csv"))
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        for statement in [
            "UPDATE review_audit SET actor = 'someone else'", "DELETE FROM review_audit", "TRUNCATE review_audit",
        ] {
            #expect(throws: PostgresError.self, "\(statement)") { try connection.execute(statement) }
        }
        #expect(try nodes[1].review.audit(AuditFilter(), beforeID: nil, limit: 10).map(\.actor) == ["a@example.org"])
    }
}

/// Values and errors collected from several threads.
final class Results<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Value] = []
    private var failures: [String] = []

    var values: [Value] { lock.withLock { collected } }
    var errors: [String] { lock.withLock { failures } }

    func append(_ body: () throws -> Value) {
        do {
            let value = try body()
            lock.withLock { collected.append(value) }
        } catch {
            lock.withLock { failures.append("\(error)") }
        }
    }
}
