import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The upload worker against the real local platform process and its fault
/// injection. Each ends by checking the platform's own database, not the worker's view. Serialized:
/// they share two cores with the platform processes they start.
@Suite(.serialized) struct WorkerTests {
    /// 1. 30% 5xx, 10% dropped after processing, 200 ms latency: 50 reports of 3 photos, submitted
    /// through the web endpoints of the application `har serve` builds, in-process (sign-in through the faulty platform, draft,
    /// photo uploads, submission form), all end stored, and the platform holds exactly them,
    /// byte-identical to the bytes uploaded, with no duplicate.
    @Test func faultsEveryReportStoredExactlyOnce() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "fail5xx=0.3,drop=0.1,latency_ms=200,seed=7")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        let serve = try RunningServer(environment: serveEnvironment(dataDir: fixture.dataDir, platform: platform))
        let browser = try WebReporter(baseURL: serve.baseURL, folder: folder)
        try await browser.signIn(email: "faults@example.org")
        // The worker sends while the rest are still being submitted: each submission wakes it.
        try await browser.submitReports(50, tag: "faults", into: fixture)
        #expect(Set(fixture.captured.flatMap(\.photoHashes)).count == 150, "150 distinct photos sent")
        try await waitUntil("all 50 reports are stored", timeout: 240) { try fixture.states()["stored"] == 50 }
        let metrics = try await curl(serve.baseURL + "/metrics")
        #expect(metrics.body.contains("har_outbox_reports{state=\"stored\"} 50"))
        // Connections were dropped after processing (the reconciliation path ran), not only 5xx.
        #expect(metrics.body.contains("har_worker_failures_total{kind=\"outcome_unknown\"} "))
        #expect(!metrics.body.contains("har_worker_failures_total{kind=\"outcome_unknown\"} 0\n"))
        await serve.stop()
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// 3. The platform process stopped for a while, then back on the same port: the queue drains and
    /// no report is in needs attention.
    @Test func platformDownThenBackDrains() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=100")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "down@example.org", session: try await platform.signIn(email: "down@example.org"))
        try fixture.queueReports(20)
        let worker = try fixture.worker(platform: platform, reportsAtOnce: 4, photosAtOnce: 2)
        worker.start()
        try await waitUntil("a few reports are stored") { try fixture.states()["stored", default: 0] >= 2 }
        await platform.stop()
        try await waitUntil("reports wait to retry while the platform is down") {
            try fixture.states()["retry_wait", default: 0] >= 3
        }
        // Down for a while: until a report has been tried again, and refused again, while it is.
        let before = try fixture.mostAttempts()
        try await waitUntil("a report is retried while the platform is down") { try fixture.mostAttempts() > before }
        try await platform.start()
        try await waitUntil("the queue is drained", timeout: 180) { try fixture.states()["stored"] == 20 }
        worker.stop()
        #expect(try fixture.states()["needs_attention"] == nil)
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// 4. The platform session expires mid-queue: reports wait for sign-in; a real sign-in (the
    /// user's session replaced in the table) resumes them by itself, and the queue drains.
    @Test func sessionExpiringMidQueueResumesAfterSignIn() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=150", sessionTTL: 3)
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        let email = "expiry@example.org"
        try fixture.addUser(email: email, session: try await platform.signIn(email: email))
        try fixture.queueReports(24)
        let worker = try fixture.worker(platform: platform, reportsAtOnce: 2, photosAtOnce: 1)
        worker.start()
        try await waitUntil("reports wait for sign-in") { try fixture.states()["waiting_signin", default: 0] > 0 }
        var signIns = 0
        try await waitUntil("the queue is drained after sign-ins", timeout: 180) {
            let states = try fixture.states()
            if states["stored"] == 24 { return true }
            // Each new session also lives 3 s: sign in again whenever the worker waits for it.
            if states["waiting_signin", default: 0] > 0, signIns < 40 {
                let session = try await platform.signIn(email: email)
                try fixture.updateSession(session)
                signIns += 1
            }
            return false
        }
        worker.stop()
        #expect(signIns >= 1)
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// 5. Deleted during transfer (LST-07): the worker stops, deletes what it created, and nothing
    /// is left on the platform.
    @Test func deleteDuringTransferLeavesNothingOnThePlatform() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=250,drop=0.1,seed=3")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        let session = try await platform.signIn(email: "delete@example.org")
        try fixture.addUser(email: "delete@example.org", session: session)
        try fixture.queueReports(12)
        let worker = try fixture.worker(platform: platform, reportsAtOnce: 4, photosAtOnce: 2)
        worker.start()
        try await waitUntil("some reports are mid-transfer") { try fixture.states()["uploading", default: 0] >= 2 }
        // What the list's Delete does (`ReportListScreen.delete`): the store's plan, then the platform's
        // DELETE for a report already stored there.
        let list = ReportList(store: fixture.stores.reports, files: PhotoFiles(directory: fixture.dataDir + "/photos"))
        let client = try platform.client()
        for report in fixture.captured {
            let now = Date().timeIntervalSince1970
            switch try list.planDeletion(localID: report.localID, userID: fixture.userID, now: now) {
            case .deleteOnPlatform(let reportID):
                try await client.deleteReport(reportID: reportID, session: session)
                try list.markDeleted(localID: report.localID, userID: fixture.userID, now: now)
            case .cancelledLocally, .handedToWorker, .notFound:
                break
            }
        }
        worker.wake()
        try await waitUntil("every report is deleted or cancelled") {
            let states = try fixture.states()
            return states["deleted", default: 0] + states["cancelled", default: 0] == 12
        }
        worker.stop()
        #expect(try fixture.states()["deleted", default: 0] >= 2)
        try checkPlatformHolds([], platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// 6. A refusal with a message: needs attention with the platform's message; after the field is
    /// fixed, `har outbox retry` sends it, and it is stored.
    @Test func refusalNeedsAttentionThenRetryAfterFix() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(
            email: "refused@example.org", session: try await platform.signIn(email: "refused@example.org"))
        try fixture.queueReports(1, latitude: 95)  // no such latitude: the platform refuses it
        let worker = try fixture.worker(platform: platform)
        worker.start()
        let localID = try #require(fixture.captured.first?.localID)
        try await waitUntil("the report needs attention") { try fixture.state(of: localID).state == "needs_attention" }
        let message = try fixture.state(of: localID).lastError ?? ""
        #expect(message.contains("latitude"), "the platform's message: \(message)")
        // The list shows the platform's own message on the row (LST-03).
        let rows = try fixture.stores.reports.reports(userID: fixture.userID)
        #expect(rows.first?.lastError == message)
        #expect(ReportListScreen.status(of: try #require(rows.first)).kind == "attention")

        try fixture.execute("UPDATE reports SET latitude = 51.5")
        let retry = try await runHar(["outbox", "retry", localID], environment: ["HAR_DATA_DIR": fixture.dataDir])
        #expect(retry.status == 0, "\(retry.stderr)")
        try await waitUntil("the report is stored") { try fixture.state(of: localID).state == "stored" }
        worker.stop()
        let counts = try await runHar(["outbox", "counts"], environment: ["HAR_DATA_DIR": fixture.dataDir])
        #expect(counts.stdout.contains("stored\t1"))
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }
}
