import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// The read-then-write checks one SQLite writer made safe, run from three "nodes" at once: three sets of
/// stores, each with its own connection pool, on one PostgreSQL database. SERIALIZABLE with retry must
/// keep each check whole across them.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
final class PostgresStoreRaceTests: Sendable {
    let nodes: [Stores]
    let now = Date().timeIntervalSince1970.rounded(.down)

    init() throws {
        let url = try PostgresCluster.shared().makeDatabase()
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
