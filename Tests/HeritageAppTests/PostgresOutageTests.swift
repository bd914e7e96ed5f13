import Foundation
import PostgresStorage
import Testing

@testable import HeritageApp

/// OPS-04: PostgreSQL stopped under load, with the real `har serve` on a PostgreSQL server of the
/// test's own (`PostgresServer`), the local platform process, and a volunteer at a browser. One node:
/// the machine the suite runs on has two cores shared with other work; the worker's leases and the
/// pool's reconnection are the same code on every node.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresOutageTests {
    /// OPS-04: `pg_ctl stop -m immediate` for about ten seconds while the node drains its queue and a
    /// volunteer uploads: pages and uploads answer 503 with a message in the visitor's language (not
    /// a 500, not a hang), `/healthz` says the store is down; after `pg_ctl start` the node answers
    /// again by itself, a report filed right after the return is delivered without waiting for a
    /// lease to lapse (two minutes, the default `worker_lease_seconds`), and every report is on the
    /// platform exactly once.
    @Test func ops04PostgresStoppedUnderLoadAnswers503AndDeliveryResumesAfterItsReturn() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let postgres = try PostgresServer()
        let admin = try PostgresConnection(postgres.connectionString)
        try admin.execute("CREATE DATABASE har")
        admin.close()
        let database = "host=\(postgres.folder) dbname=har user=postgres"
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=400,seed=7")
        var environment = serveEnvironment(dataDir: folder + "/node", platform: platform)
        environment["HAR_DATABASE_URL"] = database
        environment["HAR_PHOTO_DIR"] = folder + "/photos"
        environment["HAR_WORKER_REPORTS_AT_ONCE"] = "2"
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        let port = try await serve.waitForPort()
        let baseURL = "http://127.0.0.1:\(port)"
        let reporter = try WebReporter(baseURL: baseURL, folder: folder)
        try await reporter.signIn(email: "outage@example.org")
        var captured: [CapturedReport] = []
        func file(_ name: String) async throws {
            let (localID, hashes) = try await reporter.submitReport(
                name: name, photos: 2, latitude: 51.5, longitude: -0.12)
            captured.append(CapturedReport(id: 0, localID: localID, placeName: name, photoHashes: hashes))
        }
        for index in 1...8 { try await file("Outage chapel \(index)") }
        // The next report's draft is open in the volunteer's browser when the database goes.
        let creation = try await reporter.get("/reports/new")
        let draft = try #require(creation.body.firstMatch(#"data-draft="([0-9a-f-]{36})""#))
        let csrf = try SignedInClient.csrf(in: creation.body)

        try postgres.stopImmediately()
        let stoppedAt = Date()
        reporter.http.timeoutSeconds = 20
        let list = try await reporter.get("/reports")
        #expect(list.status == 503, "the list: \(list.status)")
        #expect(list.body.contains("cannot reach its database"), "\(list.body.prefix(400))")
        #expect(list.headers["retry-after"] == "5")
        let newReport = try await reporter.get("/reports/new")
        #expect(newReport.status == 503, "the new report's page: \(newReport.status)")
        let french = try await reporter.http.get("/reports", headers: [("Accept-Language", "fr")])
        #expect(french.status == 503 && french.body.contains("ne joint pas sa base de données"))
        let photo = folder + "/while-down.jpg"
        try Data(try reporter.jpeg(label: "while down")).write(to: URL(fileURLWithPath: photo))
        let upload = try await reporter.post(
            "/api/drafts/\(draft)/photos",
            [
                "-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json", "-F",
                "photo=@\(photo);type=image/jpeg",
                "-F", "latitude=51.5", "-F", "longitude=-0.12", "-F", "accuracy=8",
            ])
        #expect(upload.status == 503, "the upload: \(upload.status) \(upload.body.prefix(300))")
        #expect(upload.body.contains(#""error":"store_down""#) && upload.body.contains("cannot reach its database"))
        let health = try await reporter.get("/healthz")
        #expect(health.status == 503 && health.body.contains("store"), "\(health.status) \(health.body)")
        // About ten seconds down in all, as the issue describes.
        let downFor = 10 - Date().timeIntervalSince(stoppedAt)
        if downFor > 0 { try await Task.sleep(for: .milliseconds(Int(downFor * 1000))) }
        try postgres.start()

        try await waitUntil("the node answers again by itself", timeout: 30, interval: 0.2) {
            try await reporter.get("/healthz").status == 200
        }
        let upAgain = try await reporter.get("/reports")
        #expect(upAgain.status == 200)
        try await file("Outage chapel filed after the return")
        // Delivered without a lease's lapse: the waits below are far shorter than the two minutes a
        // report kept its lease after a store failure.
        let stores = try Stores.postgres(url: database, poolSize: 1)
        defer { stores.close() }
        try await waitUntil("every report is delivered after the database's return", timeout: 60, interval: 0.2) {
            try stores.outbox.countsByState()["stored"] == captured.count
        }
        await serve.terminate()
        try checkPlatformHolds(captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// OPS-04: the review's dashboard and a kiosk's screen, while PostgreSQL is stopped: 503 with the
    /// message (a kiosk's routes read the store through their own wrapper); both answer again after
    /// the database's return.
    @Test func ops04ReviewAndKioskScreensAnswer503WhilePostgresIsStopped() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let postgres = try PostgresServer()
        let platform = try await PlatformProcess(folder: folder, verified: KioskTests.coordinator)
        var environment = PostgresServeTests.environment(database: postgres.connectionString, platform: platform)
        environment["HAR_COORDINATORS"] = KioskTests.coordinator
        let server = try RunningServer(environment: environment)
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        #expect(try await tablet.curl("/kiosk", []).status == 200)

        try postgres.stopImmediately()
        let kiosk = try await tablet.curl("/kiosk", [])
        #expect(kiosk.status == 503 && kiosk.body.contains("cannot reach its database"), "\(kiosk.status)")
        let review = try await coordinator.get("/review")
        #expect(review.status == 503 && review.body.contains("cannot reach its database"), "\(review.status)")
        try postgres.start()

        try await waitUntil("the kiosk answers again", timeout: 30, interval: 0.2) {
            try await tablet.curl("/kiosk", []).status == 200
        }
        #expect(try await coordinator.get("/review").status == 200)
        await server.stop()
        await platform.stop()
    }
}
