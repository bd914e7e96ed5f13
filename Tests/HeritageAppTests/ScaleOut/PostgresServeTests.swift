import Foundation
import PostgresStorage
import Testing

@testable import HeritageApp

/// `har serve`'s application on PostgreSQL (`database_url`): two nodes on one database and one upstream
/// platform share their users' sessions; a schema newer than the program stops start.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresServeTests {
    static func environment(database: String, platform: PlatformProcess) -> [String: String] {
        [
            "HAR_DATABASE_URL": database, "HAR_PLATFORM_URL": platform.baseURL,
            "HAR_CONSUMER_KEY": PlatformProcess.key, "HAR_CONSUMER_SECRET": PlatformProcess.secret,
            "HAR_WORKER_ENABLED": "false",
        ]
    }

    @Test func signingInOnOneNodeWorksOnTheOther() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let database = try PostgresCluster.shared().makeDatabase()
        let environment = Self.environment(database: database, platform: platform)
        let first = try RunningServer(environment: environment)
        let second = try RunningServer(environment: environment)
        defer {
            first.application.stop(gracePeriod: 1)
            second.application.stop(gracePeriod: 1)
        }
        #expect(
            !FileManager.default.fileExists(atPath: first.dataDir + "/har.sqlite"), "no SQLite file with PostgreSQL")
        #expect(try await curl(second.baseURL + "/healthz").body.contains(#""store":"ok""#))

        let client = try WebClient(first)
        let signedIn = try await client.signIn(uniqueEmail())
        #expect(signedIn.headers["location"] == "/reports")
        let token = try #require(client.cookie("har_session"))
        let elsewhere = try WebClient(second)
        try elsewhere.setCookie("har_session", token)
        let page = try await elsewhere.get("/reports")
        #expect(page.status == 200, "the other node knows the session")
        let stranger = try await WebClient(second).get("/reports")
        #expect(stranger.headers["location"] == "/signin")
        await platform.stop()
    }

    /// A photo uploaded through one node is in the shared photo folder, served by the other; each node's
    /// uploads folder is its own, under the shared one.
    @Test func nodesSharePhotosThroughThePhotoFolder() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let photos = folder + "/shared-photos"
        var environment = Self.environment(
            database: try PostgresCluster.shared().makeDatabase(), platform: platform)
        environment["HAR_PHOTO_DIR"] = photos
        let first = try RunningServer(environment: environment.merging(["HAR_NODE_ID": "node-a"]) { $1 })
        let second = try RunningServer(environment: environment.merging(["HAR_NODE_ID": "node-b"]) { $1 })
        defer {
            first.application.stop(gracePeriod: 1)
            second.application.stop(gracePeriod: 1)
        }
        let client = try await SignedInClient(first)
        let draft = try await client.openDraft()
        let photoID = try client.photoID(try await client.upload(draft, file: try TestImages.jpeg()))
        #expect(FileManager.default.fileExists(atPath: photos + "/" + photoID))
        #expect(FileManager.default.fileExists(atPath: photos + "/tmp/node-a"))
        #expect(FileManager.default.fileExists(atPath: photos + "/tmp/node-b"))

        let elsewhere = try WebClient(second)
        try elsewhere.setCookie("har_session", try #require(client.http.cookie("har_session")))
        let served = try await elsewhere.get("/photos/\(photoID)")
        #expect(served.status == 200)
        #expect(served.headers["content-type"] == "image/jpeg")
        await platform.stop()
    }

    /// The upload worker on PostgreSQL: a report filed through one node reaches the platform with its
    /// photos, every transition recorded in the shared database.
    @Test func theWorkerDeliversAReportFromPostgreSQL() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let database = try PostgresCluster.shared().makeDatabase()
        var environment = Self.environment(database: database, platform: platform)
        environment["HAR_WORKER_ENABLED"] = "true"
        let node = try RunningServer(environment: environment)
        defer { node.application.stop(gracePeriod: 1) }
        let client = try await SignedInClient(node)
        let draft = try await client.openDraft()
        for _ in 0..<2 {
            _ = try client.photoID(
                try await client.upload(
                    draft, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0"]))
        }
        let form = try await client.get("/reports/new/submit").body
        let token = try #require(form.firstMatch(#"name="submit_token" value="([0-9a-f]{64})""#))
        var submit = [
            "--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "submit_token=\(token)",
            "--data-urlencode", "draft=\(draft)",
        ]
        for (name, value) in SubmitTests.good.sorted(by: { $0.key < $1.key }) {
            submit += ["--data-urlencode", "\(name)=\(value)"]
        }
        #expect(try await client.post("/reports/new/submit", submit, csrf: false).status == 303)

        let stores = try Stores.postgres(url: database, poolSize: 1)
        defer { stores.close() }
        try await waitUntil("the report is stored") { try stores.outbox.countsByState()["stored"] == 1 }
        let id = try #require(try stores.outbox.reportID(localID: draft))
        #expect(try stores.outbox.report(id: id)?.platformReportID != nil)
        let photos = try stores.outbox.photos(reportID: id)
        #expect(photos.count == 2)
        #expect(photos.allSatisfy { $0.state == .stored && $0.platformPhotoID != nil })
        await platform.stop()
    }

    @Test func aSchemaNewerThanTheProgramStopsStart() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let database = try PostgresCluster.shared().makeDatabase()
        let connection = try PostgresConnection(database)
        try PostgresMigrator.apply(AppMigrations.postgres, to: connection)
        try connection.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'x')")
        let error = try #require(throws: StoreError.self) {
            _ = try RunningServer(environment: Self.environment(database: database, platform: platform))
        }
        #expect(error.description.contains("newer than this program"))
        await platform.stop()
    }

    @Test func aDatabaseNeedsAnUpstreamPlatform() {
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(file: nil, environment: ["HAR_DATABASE_URL": "host=/tmp dbname=x"])
        }
    }
}
