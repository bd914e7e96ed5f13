import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The review gate's three broken promises, as a new user and an attacker met them: run against the
/// real `har serve` (a process, its security log read back), the real upload worker and the local
/// platform process with its fault switches; the worker's faults on SQLite and on PostgreSQL
/// (`StoreBackend.all`: SQLite alone where PostgreSQL is not installed).
@Suite(.serialized) struct ReviewGateTests {
    /// REV-10: `har users grant` and `HAR_COORDINATORS` name e-mails nobody has signed in with; a
    /// stranger signs up with one of them (the platform does not verify it) and gets 403 on /review,
    /// logged as a security event, until an administrator confirms that first sign-in on the server.
    @Test func rev10StrangerCannotTakeAPendingGrant() async throws {
        let configured = "new.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let granted = "granted.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let verified = "verified.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let server = try await ServeProcess(environment: [
            "HAR_COORDINATORS": "\(configured),\(verified)", "HAR_PLATFORM_VERIFIED": verified,
            "HAR_WORKER_ENABLED": "false",
        ])
        let environment = ["HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        func har(_ arguments: [String]) async throws -> ProgramResult {
            try await runProgram(TestPaths.harExecutable, ["users"] + arguments, environment: environment)
        }
        let grant = try await har(["grant", granted, "admin"])
        #expect(grant.status == 0 && grant.stdout.contains("pending"), "\(grant.stdout)")

        for email in [configured, granted] {
            let stranger = try await SignedInClient(server, email: email)
            let refused = try await stranger.get("/review")
            #expect(refused.status == 403, "\(email)")
            #expect(refused.body.contains("an administrator must confirm your first sign-in"))
        }
        let listed = try await har(["list"])
        #expect(listed.stdout.contains("\(configured)\tcoordinator (pending: first sign-in"), "\(listed.stdout)")
        #expect(listed.stdout.contains("from 127.0.0.1, account "))

        // The owner of a verified account needs nobody: bound at the first sign-in.
        let owner = try await SignedInClient(server, email: verified)
        #expect(try await owner.get("/review").status == 200)

        // An administrator sees the waiting sign-ins on /review/users, and may confirm one there.
        #expect(try await har(["grant", verified, "admin"]).status == 0)
        let users = try await owner.get("/review/users")
        #expect(users.body.contains("Pending: first sign-in"), "shown so on /review/users")
        #expect(users.body.contains("value=\"confirm\""))
        let grantedAccount = try sqlite(server.dataDir, "SELECT account_id FROM users WHERE email = '\(granted)'")
        #expect(users.body.contains("name=\"account\" value=\"\(grantedAccount)\""), "the button names the account")
        let confirmedThere = try await ReviewTests.post(
            owner, "/review/users", [("email", granted), ("op", "confirm"), ("account", grantedAccount)],
            tokenFrom: "/review/users")
        #expect(confirmedThere.status == 303)
        #expect(try await SignedInClient(server, email: granted).get("/review").status == 200)

        // The operator confirms the other, on the server: that account is a coordinator from now on.
        let account = try sqlite(server.dataDir, "SELECT account_id FROM users WHERE email = '\(configured)'")
        #expect(try await har(["confirm", configured, "--account", account]).status == 0)
        let confirmed = try await SignedInClient(server, email: configured)
        #expect(try await confirmed.get("/review").status == 200)
        #expect(try await har(["confirm", "nobody@example.org"]).status == 65)

        let (_, log) = await server.stop()
        #expect(log.contains("review.pending_refused"), "the refused use is a security event")
        #expect(log.contains("role.pending_signin"))
    }

    /// REV-11: with the platform answering 5xx, a report waits in retry_wait; rejected as unsafe there,
    /// it is never created on the platform when the platform answers again. With the platform dropping
    /// its answers instead, the create landed unseen: the withdrawal finds it and removes it.
    @Test(arguments: StoreBackend.all, ["fail5xx=0.9,seed=3", "drop=1"])
    func rev11RejectedInRetryWaitIsNeverPublished(_ backend: StoreBackend, _ faults: String) async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Signed in while the platform answers; then it fails (its sessions are kept in its database).
        let first = try await PlatformProcess(folder: folder)
        let session = try await first.signIn(email: "volunteer@example.org")
        await first.stop()
        let faulty = try await PlatformProcess(folder: folder, faults: faults)
        let fixture = try OutboxFixture(dataDir: folder + "/data", on: backend)
        try fixture.addUser(email: "volunteer@example.org", session: session)
        try fixture.queueReports(1, photos: 2, tag: "unsafe ")
        let localID = try #require(fixture.captured.first?.localID)
        let id = try #require(try fixture.stores.outbox.reportID(localID: localID))

        let worker = try fixture.worker(platform: faulty)
        worker.start()
        try await waitUntil("the report retries") {
            let report = try fixture.stores.outbox.report(id: id)
            return report?.state == .retryWait && report?.createAttemptedAt != nil
        }
        worker.stop()
        await faulty.stop()
        let reject = ReviewDecision(
            to: .rejected, from: [.received, .needsInfo], reason: "unsafe", message: nil, action: "reject")
        // Decided a minute ago: the undo window is over by the time the worker looks.
        #expect(
            try fixture.stores.review.decide(
                reject, id: id, actor: "c@example.org", now: Date().timeIntervalSince1970 - 60) == .done)
        #expect(try fixture.stores.outbox.report(id: id)?.state == .withdrawing)

        let healthy = try await PlatformProcess(folder: folder)
        let again = try fixture.worker(platform: healthy)
        again.start()
        try await waitUntil("the report is withdrawn") { try fixture.stores.outbox.report(id: id)?.state == .withdrawn }
        again.stop()
        await healthy.stop()
        let platform = try Database(path: healthy.databasePath, mode: .readOnly)
        defer { platform.close() }
        let live = try platform.scalar("SELECT count(*) FROM report WHERE deleted_time IS NULL").int
        #expect(live == 0, "nothing of the rejected report is published (\(faults))")
        // With answers dropped the create had landed, and was found and removed; with 5xx it never did.
        let made = try platform.scalar("SELECT count(*) FROM report").int
        #expect(made == (faults.hasPrefix("drop") ? 1 : 0), "\(faults)")
        #expect(try fixture.stores.review.row(id: id)?.review == "rejected")
    }

    /// REV-11: rejected while a photo is on its way (the platform slow), the report is completed no
    /// further and is withdrawn once that call has settled and the undo window has passed.
    @Test(arguments: StoreBackend.all) func rev11RejectedMidUploadIsWithdrawn(_ backend: StoreBackend) async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let slow = try await PlatformProcess(folder: folder, faults: "latency_ms=700")
        let session = try await slow.signIn(email: "volunteer@example.org")
        let fixture = try OutboxFixture(dataDir: folder + "/data", on: backend)
        try fixture.addUser(email: "volunteer@example.org", session: session)
        try fixture.queueReports(1, photos: 4, tag: "mid ")
        let localID = try #require(fixture.captured.first?.localID)
        let id = try #require(try fixture.stores.outbox.reportID(localID: localID))
        let worker = try fixture.worker(platform: slow)
        worker.start()
        try await waitUntil("a photo is on its way") { try fixture.stores.outbox.report(id: id)?.state == .uploading }
        let reject = ReviewDecision(
            to: .rejected, from: [.received, .needsInfo], reason: "unsafe", message: nil, action: "reject")
        #expect(
            try fixture.stores.review.decide(reject, id: id, actor: "c@example.org", now: Date().timeIntervalSince1970)
                == .done)
        try await waitUntil("the report is withdrawn", timeout: 90) {
            try fixture.stores.outbox.report(id: id)?.state == .withdrawn
        }
        worker.stop()
        await slow.stop()
        let platform = try Database(path: slow.databasePath, mode: .readOnly)
        defer { platform.close() }
        #expect(try platform.scalar("SELECT count(*) FROM report WHERE deleted_time IS NULL").int == 0)
        let photos = try fixture.stores.outbox.photos(reportID: id)
        #expect(photos.filter { $0.state == .stored }.count < 4, "the photos after the decision were never sent")
    }

    /// REV-11 with `kill -9`: policy `none`, a report's photos on their way to a slow platform; the report
    /// is rejected and the server killed mid-call. Started again, the server completes nothing of it and
    /// withdraws it once the undo window has passed: nothing of it stays published.
    @Test(arguments: StoreBackend.all)
    func rev11RejectedThenKilledMidCallIsWithdrawnAfterTheRestart(_ backend: StoreBackend) async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=600", verified: "lead@example.org")
        let fixture = try OutboxFixture(dataDir: folder + "/app", on: backend)
        var environment = serveEnvironment(
            dataDir: fixture.dataDir, platform: platform, databaseURL: fixture.databaseURL)
        environment["HAR_REVIEW_POLICY"] = "none"
        environment["HAR_COORDINATORS"] = "lead@example.org"
        // Restarted under the same name, the node takes its former run's leases back at once (on
        // PostgreSQL; docs/SCALE-OUT.md): unnamed, its name would hold the ephemeral port.
        environment["HAR_NODE_ID"] = "gate-node"
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        let port = try await serve.waitForPort()
        let browser = try WebReporter(baseURL: "http://127.0.0.1:\(port)", folder: folder)
        try await browser.signIn(email: "reporter@example.org")
        try await browser.submitReports(1, photos: 4, tag: "killed", into: fixture)
        let report = try #require(fixture.captured.first)
        try await waitUntil("a photo is on its way") { try fixture.state(of: report.localID).state == "uploading" }
        let server = RunningAddress(baseURL: "http://127.0.0.1:\(port)", dataDir: fixture.dataDir)
        let lead = try await SignedInClient(server, email: "lead@example.org")
        let answer = try await ReviewTests.post(
            lead, "/review/reports/\(report.id)/action", [("action", "reject"), ("reason", "unsafe")],
            tokenFrom: "/review")
        #expect(answer.status == 303)
        await serve.killHard()
        #expect(try fixture.state(of: report.localID).state == "withdrawing")
        let again = try HarProcess(["serve"], environment: environment, folder: folder)
        _ = try await again.waitForPort()
        try await waitUntil("the report is withdrawn", timeout: 90) {
            try fixture.state(of: report.localID).state == "withdrawn"
        }
        await again.terminate()
        let db = try Database(path: platform.databasePath, mode: .readOnly)
        defer { db.close() }
        #expect(try db.scalar("SELECT count(*) FROM report WHERE deleted_time IS NULL").int == 0)
        await platform.stop()
    }

    /// REV-11, REV-07: default policy, a stored report rejected in bulk and undone at once stays stored,
    /// on /review and on its reporter's list; nothing is deleted on the platform.
    @Test func rev11UndoneRejectKeepsTheReport() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let ids = try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Kept chapel")
        let id = try #require(ids.first)
        try sqlite(
            server.dataDir,
            "UPDATE reports SET state = 'stored', platform_report_id = 'P-kept', create_attempted_at = submitted_at WHERE id = \(id)"
        )
        let question = try await ReviewTests.post(
            coordinator, "/review/bulk", [("action", "reject"), ("reason", "unsafe"), ("ids", String(id))],
            tokenFrom: "/review")
        #expect(question.status == 200)
        let done = try await ReviewTests.post(
            coordinator, "/review/bulk",
            [("action", "reject"), ("reason", "unsafe"), ("ids", String(id)), ("confirm", "1")], tokenFrom: "/review")
        #expect(done.body.contains("undo-form"))
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE id = \(id)") == "withdrawing")
        let undone = try await ReviewTests.post(
            coordinator, "/review/bulk/undo", [("action", "reject"), ("ids", String(id))], tokenFrom: "/review")
        #expect(undone.status == 200)
        #expect(
            try sqlite(server.dataDir, "SELECT state || ' ' || review_state FROM reports WHERE id = \(id)")
                == "stored received")
        #expect(try await coordinator.get("/review").body.contains("Kept chapel"))
        #expect(try await volunteer.get("/reports").body.contains("Kept chapel"))
        await server.stop()
    }
}

extension ReviewGateTests {
    /// REV-07 (item 5): "all matching" acts on the reports the coordinator confirmed; one that entered
    /// the filter after the question (a fresh report) is skipped, said why.
    @Test func rev07BulkAllMatchingActsOnTheConfirmedSnapshot() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let first = try ReviewTests.insertReports(server, email: volunteer.email, count: 3, prefix: "Seen chapel")
        let filter = [("q", "chapel"), ("scope", "all"), ("action", "approve")]
        let question = try await ReviewTests.post(coordinator, "/review/bulk", filter, tokenFrom: "/review")
        #expect(question.status == 200 && question.body.contains("name=\"snapshot\""))
        let snapshot = try #require(KioskTests.first(#"name="snapshot" value="[0-9,-]+""#, in: question.body))
            .dropFirst(#"name="snapshot" value=""#.count).dropLast()
        let late = try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Late chapel")
        let done = try await ReviewTests.post(
            coordinator, "/review/bulk", filter + [("snapshot", String(snapshot)), ("confirm", "3")],
            tokenFrom: "/review")
        #expect(done.status == 200)
        let approved = try sqlite(server.dataDir, "SELECT id FROM reports WHERE review_state = 'approved' ORDER BY id")
        #expect(approved == first.map(String.init).joined(separator: "\n"), "the three confirmed, not the late one")
        #expect(try sqlite(server.dataDir, "SELECT review_state FROM reports WHERE id = \(late[0])") == "received")
        #expect(done.body.contains("entered the filter after you confirmed"))
        await server.stop()
    }

    /// REV-08 (item 6): a coordinator's hold and its audit row are one transaction: when the audit row
    /// cannot be written, the report is not held either.
    @Test func rev08DeliveryActionAndItsAuditRowTogether() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let id = try #require(
            try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Held").first)
        try sqlite(
            server.dataDir,
            """
            CREATE TRIGGER refuse_hold_audit BEFORE INSERT ON review_audit WHEN NEW.action = 'hold'
            BEGIN SELECT RAISE(ABORT, 'audit refused'); END
            """)
        let held = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "hold")], tokenFrom: "/review")
        #expect(held.status >= 500)
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE id = \(id)") == "queued", "not held")
        try sqlite(server.dataDir, "DROP TRIGGER refuse_hold_audit")
        _ = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "hold")], tokenFrom: "/review")
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE id = \(id)") == "held")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM review_audit WHERE action = 'hold'") == "1")
        await server.stop()
    }
}

/// A server some other process runs, as the test clients see it.
final class RunningAddress: ServerUnderTest {
    let baseURL: String
    let dataDir: String

    init(baseURL: String, dataDir: String) {
        self.baseURL = baseURL
        self.dataDir = dataDir
    }
}
