import Foundation
import PostgresStorage
import Testing

@testable import HeritageApp

/// OPS-04: PostgreSQL stopped under load, with the real `har serve` on a PostgreSQL server of the
/// test's own (`PostgresServer`), the local platform process, and volunteers at browsers. Three nodes
/// share the database and the photo folder, as in docs/SCALE-OUT.md (`Cluster`, as `ClusterTests`
/// starts them), each with a volunteer of its own.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresOutageTests {
    static let nodes = 3

    /// OPS-04: `pg_ctl stop -m immediate` for about ten seconds while three nodes drain their queue
    /// and volunteers upload on each: on every node, pages and uploads answer 503 with a message in
    /// the visitor's language (not a 500, not a hang) and `/healthz` says the store is down; after
    /// `pg_ctl start` every node answers again by itself, reports filed on each node right after the
    /// return are delivered without waiting for a lease to lapse (two minutes, the default
    /// `worker_lease_seconds`), and every report is on the platform exactly once.
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
        let ports = try (0..<Self.nodes).map { _ in try freeLoopbackPort() }
        var cluster = Cluster(folder: folder, ports: ports, environment: environment)
        defer { cluster.killAll() }
        try await cluster.startAll(workers: true)
        var volunteers: [WebReporter] = []
        for node in 0..<Self.nodes {
            let volunteer = try WebReporter(baseURL: "http://127.0.0.1:\(ports[node])", folder: folder + "/v\(node)")
            try await volunteer.signIn(email: "outage-\(node)@example.org")
            volunteers.append(volunteer)
        }
        var captured: [CapturedReport] = []
        func file(_ name: String, on node: Int) async throws {
            let (localID, hashes) = try await volunteers[node].submitReport(
                name: name, photos: 2, latitude: 51.5, longitude: -0.12)
            captured.append(CapturedReport(id: 0, localID: localID, placeName: name, photoHashes: hashes))
        }
        // Filed in turn on each node, so that every node's worker has reports of its own to drain.
        for index in 1...9 { try await file("Outage chapel \(index)", on: index % Self.nodes) }
        // Each volunteer's next report has its draft open in the browser when the database goes.
        var drafts: [(id: String, csrf: String)] = []
        for volunteer in volunteers {
            let creation = try await volunteer.get("/reports/new")
            let draft = try #require(creation.body.firstMatch(#"data-draft="([0-9a-f-]{36})""#))
            drafts.append((draft, try SignedInClient.csrf(in: creation.body)))
        }
        let watch = try PostgresConnection(database)
        let storedBeforeStop = try watch.scalar("SELECT count(*) FROM reports WHERE state = 'stored'").int ?? 0
        watch.close()

        try postgres.stopImmediately()
        let stoppedAt = Date()
        for node in 0..<Self.nodes {
            try await Self.expectStoreDown(node: node, volunteers[node], draft: drafts[node], folder: folder)
        }
        // About ten seconds down in all, as the issue describes.
        let downFor = 10 - Date().timeIntervalSince(stoppedAt)
        if downFor > 0 { try await Task.sleep(for: .milliseconds(Int(downFor * 1000))) }
        try postgres.start()
        let returnedAt = Date()

        for (node, volunteer) in volunteers.enumerated() {
            try await waitUntil("node \(node) answers again by itself", timeout: 30, interval: 0.2) {
                try await volunteer.get("/healthz").status == 200
            }
            let upAgain = try await volunteer.get("/reports")
            #expect(upAgain.status == 200, "node \(node)'s list after the return: \(upAgain.status)")
        }
        for node in 0..<Self.nodes { try await file("Outage chapel filed on node \(node) after the return", on: node) }
        // Delivered without a lease's lapse: the bound, counted from the database's return, is far
        // shorter than the two minutes a report kept its lease after a store failure (and never less
        // than a minute from here).
        let bound = max(60, 90 - Date().timeIntervalSince(returnedAt))
        let stores = try Stores.postgres(url: database, poolSize: 1)
        defer { stores.close() }
        try await waitUntil("every report is delivered after the database's return", timeout: bound, interval: 0.2) {
            try stores.outbox.countsByState()["stored"] == captured.count
        }
        let deliveredAfter = String(format: "%.1f", Date().timeIntervalSince(returnedAt))
        let before = captured.count - Self.nodes
        print(
            "OPS-04, three nodes: \(before - Int(storedBeforeStop)) of \(before) reports undelivered at the stop; "
                + "all delivered \(deliveredAfter) s after the database's return")
        await cluster.stopAll()
        try checkPlatformHolds(captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// While the database is stopped, on one node: the list and the new-report page answer 503 with
    /// the message (and in French for a French browser), the volunteer's photo upload to the open
    /// draft answers 503 `store_down`, and `/healthz` 503 names the store.
    static func expectStoreDown(
        node: Int, _ volunteer: WebReporter, draft: (id: String, csrf: String), folder: String
    ) async throws {
        volunteer.http.timeoutSeconds = 20
        let list = try await volunteer.get("/reports")
        #expect(list.status == 503, "node \(node)'s list: \(list.status)")
        #expect(list.body.contains("cannot reach its database"), "node \(node): \(list.body.prefix(400))")
        #expect(list.headers["retry-after"] == "5", "node \(node)")
        let newReport = try await volunteer.get("/reports/new")
        #expect(newReport.status == 503, "node \(node)'s new report's page: \(newReport.status)")
        let french = try await volunteer.http.get("/reports", headers: [("Accept-Language", "fr")])
        #expect(french.status == 503 && french.body.contains("ne joint pas sa base de données"), "node \(node)")
        let photo = folder + "/while-down-\(node).jpg"
        try Data(try volunteer.jpeg(label: "while down on node \(node)")).write(to: URL(fileURLWithPath: photo))
        let upload = try await volunteer.post(
            "/api/drafts/\(draft.id)/photos",
            [
                "-H", "X-CSRF-Token: \(draft.csrf)", "-H", "Accept: application/json", "-F",
                "photo=@\(photo);type=image/jpeg",
                "-F", "latitude=51.5", "-F", "longitude=-0.12", "-F", "accuracy=8",
            ])
        #expect(upload.status == 503, "node \(node)'s upload: \(upload.status) \(upload.body.prefix(300))")
        #expect(
            upload.body.contains(#""error":"store_down""#) && upload.body.contains("cannot reach its database"),
            "node \(node)")
        let health = try await volunteer.get("/healthz")
        #expect(health.status == 503 && health.body.contains("store"), "node \(node): \(health.status) \(health.body)")
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
