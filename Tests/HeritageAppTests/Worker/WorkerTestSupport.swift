import Foundation
import PlatformClient
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The local platform as its own process, with its own data folder and SQLite file, on a port that
/// can be reused after a restart (test 3 stops it and starts it again).
final class PlatformProcess: @unchecked Sendable {
    static let key = "worker-test-key"
    static let secret = "d29ya2VyLXRlc3Qtc2VjcmV0LW5vdC1yZWFs"
    let folder: String
    let faults: String?
    let sessionTTL: Int
    /// E-mails whose accounts the platform reports verified (`HAR_PLATFORM_VERIFIED`).
    let verified: String?
    private(set) var port = 0
    private var running: HarProcess?

    init(folder: String, faults: String? = nil, sessionTTL: Int = 86_400, verified: String? = nil) async throws {
        self.folder = folder + "/platform"
        self.faults = faults
        self.sessionTTL = sessionTTL
        self.verified = verified
        try FileManager.default.createDirectory(atPath: self.folder, withIntermediateDirectories: true)
        try await start()
    }

    func start() async throws {
        var environment = [
            "HAR_PLATFORM_PORT": String(port), "HAR_PLATFORM_APPS": "\(Self.key):\(Self.secret)",
            "HAR_DATA_DIR": folder, "HAR_PLATFORM_SESSION_TTL": String(sessionTTL),
        ]
        if let faults { environment["HAR_PLATFORM_FAULTS"] = faults }
        if let verified { environment["HAR_PLATFORM_VERIFIED"] = verified }
        let process = try HarProcess(["platform"], environment: environment, folder: folder)
        port = try await process.waitForPort()
        running = process
    }

    func stop() async {
        await running?.terminate()
        running = nil
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var databasePath: String { folder + "/platform.sqlite" }

    func client(concurrentTransfers: Int = 4) throws -> PlatformClient {
        try PlatformClient(
            configuration: PlatformConfiguration(
                baseURL: baseURL, consumerKey: Self.key, consumerSecret: Self.secret, connectTimeout: 2,
                totalTimeout: 20, concurrentTransfers: concurrentTransfers))
    }

    /// A real sign-in, retried through injected faults.
    func signIn(email: String) async throws -> PlatformSession {
        let client = try client(concurrentTransfers: 1)
        for _ in 0..<100 {
            do {
                return try await client.signIn(email: email, password: "correct horse battery")
            } catch let error as PlatformError where error.shouldRetryLater || error.mayHaveBeenProcessed {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        throw TestFailure("sign-in never succeeded")
    }

    deinit {
        if let process = running?.process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One report as captured, for the final check against the platform's database.
struct CapturedReport {
    var id: Int64
    var localID: String
    var placeName: String
    var photoHashes: [String]
}

/// The application's database and data folder, filled the way submission will fill them: a user with
/// a platform session, queued reports, photo files under photos/<local_id>.
final class OutboxFixture: @unchecked Sendable {
    let dataDir: String
    /// The SQLite file's pool; nil on PostgreSQL.
    let pool: DatabasePool!
    /// The PostgreSQL database (`HAR_DATABASE_URL` for a `har serve` on it); nil on SQLite.
    let databaseURL: String?
    /// The database the fixture's SQL runs on, either backend (SQL in the words both dialects share).
    private let backend: any SQLBackend
    private let postgresStores: Stores?
    private(set) var userID: Int64 = 0
    /// The application's stores on this fixture's database (the same pool).
    var stores: Stores { postgresStores ?? Stores.sqlite(SQLiteDatabase(pool: pool)) }
    private(set) var captured: [CapturedReport] = []

    /// On the data folder's SQLite file, or on a database of its own on the tests' PostgreSQL cluster
    /// (`StoreBackend.postgres`); photo files under `dataDir` either way.
    init(dataDir: String, on store: StoreBackend = .sqlite) throws {
        self.dataDir = dataDir
        try FileManager.default.createDirectory(atPath: dataDir + "/photos", withIntermediateDirectories: true)
        if store.name == StoreBackend.postgres.name {
            let url = try PostgresCluster.shared().makeDatabase()
            let database = try PostgresDatabase(url: url, poolSize: 4, migrations: AppMigrations.postgres)
            (pool, databaseURL, backend, postgresStores) = (nil, url, database, Stores.postgres(database))
        } else {
            let pool = try DatabasePool(
                path: dataDir + "/har.sqlite", configuration: .init(migrations: AppMigrations.sqlite))
            (self.pool, databaseURL, backend, postgresStores) = (pool, nil, SQLiteDatabase(pool: pool), nil)
        }
    }

    deinit { postgresStores?.close() }

    private static func write<Backend: SQLBackend, T>(
        _ backend: Backend, _ body: (any SQLConnection) throws -> T
    ) throws -> T {
        try backend.write { db in try body(db) }
    }

    /// One column of every row, as text.
    private static func column<Backend: SQLBackend>(
        _ backend: Backend, _ sql: String, _ parameters: [SQLValue], _ name: String
    ) throws -> [String?] {
        try backend.read { db in try db.query(sql, parameters).map { try $0.string(name) } }
    }

    /// A transaction on the fixture's database.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T { try Self.write(backend, body) }

    func addUser(email: String, session: PlatformSession) throws {
        let now = Date().timeIntervalSince1970
        userID = try write { db in
            _ = try db.run(
                """
                INSERT INTO users (email, platform_session_id, platform_session_expires_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                """,
                [
                    .text(email), .text(session.sessionID), SQLValue(session.expirationTime?.timeIntervalSince1970),
                    .real(now), .real(now),
                ])
            return try db.scalar("SELECT id FROM users WHERE email = ?", [.text(email)]).int ?? 0
        }
    }

    /// A sign-in as the screens record it: the user's platform session replaced.
    func updateSession(_ session: PlatformSession) throws {
        try write { db in
            _ = try db.run(
                "UPDATE users SET platform_session_id = ?, platform_session_expires_at = ? WHERE id = ?",
                [.text(session.sessionID), SQLValue(session.expirationTime?.timeIntervalSince1970), .integer(userID)])
        }
    }

    /// `count` queued reports of `photos` photos each (small real-looking JPEG files).
    func queueReports(_ count: Int, photos: Int = 3, latitude: Double = 51.5, tag: String = "") throws {
        for index in 0..<count {
            let localID = UUID().uuidString.lowercased()
            let placeName = "Chapel \(tag)\(captured.count + 1) \(localID.prefix(8))"
            var hashes: [String] = []
            let now = Date().timeIntervalSince1970
            let id = try write { db -> Int64 in
                _ = try db.run(
                    """
                    INSERT INTO reports (user_id, local_id, state, name, designation, condition, occupancy,
                        priority_category, owner_type, grade, latitude, longitude, accuracy, creation_time,
                        submitted_at, updated_at)
                    VALUES (?, ?, 'queued', ?, 'LB', 'poor', 'vacant', 'A', 'private', 'II', ?, ?, 8, ?, ?, ?)
                    """,
                    [
                        .integer(userID), .text(localID), .text(placeName), .real(latitude),
                        .real(-0.12 - Double(index) / 1000), .real(now), .real(now), .real(now),
                    ])
                let reportID = try db.scalar("SELECT id FROM reports WHERE local_id = ?", [.text(localID)]).int ?? 0
                for position in 0..<photos {
                    let photoID = UUID().uuidString.lowercased()
                    let bytes = Self.jpegBytes(size: Int.random(in: 20_000...50_000))
                    let path = dataDir + "/photos/" + photoID
                    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                        throw TestFailure("cannot write \(path)")
                    }
                    let sha = SHA256Stream.hash(bytes)
                    hashes.append(sha)
                    _ = try db.run(
                        """
                        INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, latitude,
                            longitude, captured_at, created_at)
                        VALUES (?, ?, ?, 'image/jpeg', ?, ?, 51.5, -0.12, '2026-05-01T10:00:00Z', ?)
                        """,
                        [
                            .integer(reportID), .text(photoID), .integer(Int64(position)),
                            .integer(Int64(bytes.count)), .text(sha), .real(now),
                        ])
                }
                return reportID
            }
            captured.append(CapturedReport(id: id, localID: localID, placeName: placeName, photoHashes: hashes))
        }
    }

    /// FF D8 FF E0 … FF D9 with random bytes between: what the platform's magic-byte check accepts.
    static func jpegBytes(size: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0]
        bytes += (0..<max(size - bytes.count - 2, 0)).map { _ in UInt8.random(in: 0...255) }
        return bytes + [0xFF, 0xD9]
    }

    /// A report that went in through the web endpoints (`WebReporter`): remembered for the final
    /// check, with its row id in this database.
    func recordSubmitted(localID: String, placeName: String, photoHashes: [String]) throws {
        let id = try write { db in
            try db.scalar("SELECT id FROM reports WHERE local_id = ?", [.text(localID)]).int ?? 0
        }
        guard id != 0 else { throw TestFailure("submitted report \(localID) is not in the app's database") }
        captured.append(CapturedReport(id: id, localID: localID, placeName: placeName, photoHashes: photoHashes))
    }

    /// The SHA-256 of each photo of a report as the application recorded it, in position order.
    func recordedHashes(of localID: String) throws -> [String] {
        try Self.column(
            backend,
            """
            SELECT p.sha256 FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.local_id = ?
            ORDER BY p.position
            """, [.text(localID)], "sha256"
        ).map { $0 ?? "" }
    }

    func states() throws -> [String: Int] { try stores.outbox.countsByState() }

    /// The most failed attempts any report has had (the worker counts each one it will retry).
    func mostAttempts() throws -> Int64 {
        try Self.scalar(backend, "SELECT coalesce(max(attempts), 0) FROM reports").int ?? 0
    }

    private static func scalar<Backend: SQLBackend>(_ backend: Backend, _ sql: String) throws -> SQLValue {
        try backend.read { db in try db.scalar(sql, []) }
    }

    func state(of localID: String) throws -> (state: String, lastError: String?) {
        let sql = "SELECT state, last_error FROM reports WHERE local_id = ?"
        let state = try Self.column(backend, sql, [.text(localID)], "state").first ?? nil
        let lastError = try Self.column(backend, sql, [.text(localID)], "last_error").first ?? nil
        return (state ?? "", lastError)
    }

    func execute(_ sql: String) throws {
        _ = try write { db in try db.run(sql, []) }
    }

    /// The worker as `har serve` builds it, on this fixture's database, with fast retries.
    func worker(platform: PlatformProcess, reportsAtOnce: Int = 8, photosAtOnce: Int = 4) throws -> UploadWorker {
        var settings = WorkerSettings()
        settings.reportsAtOnce = reportsAtOnce
        settings.photosAtOnce = photosAtOnce
        settings.retryBaseSeconds = 0.05
        settings.retryCapSeconds = 1
        settings.pollSeconds = 0.2
        return UploadWorker(
            store: stores.outbox, leases: stores.leases,
            client: try platform.client(concurrentTransfers: reportsAtOnce + 1),
            settings: settings, dataDirectory: dataDir, metrics: WorkerMetrics(), log: Log())
    }
}

/// The invariant, read from the platform's own database: exactly one live report per captured one
/// (matched by place name), holding exactly its photos, byte-identical by SHA-256; nothing else.
func checkPlatformHolds(_ captured: [CapturedReport], platformDatabase: String) throws {
    let db = try Database(path: platformDatabase, mode: .readOnly)
    defer { db.close() }
    let reports = try db.query("SELECT id, place_name FROM report WHERE deleted_time IS NULL")
    #expect(reports.count == captured.count, "live reports on the platform")
    var idByName: [String: [String]] = [:]
    for row in reports { idByName[try row.string("place_name") ?? "", default: []].append(try row.string("id") ?? "") }
    let photoCount =
        try db.scalar(
            "SELECT count(*) FROM photo p JOIN report r ON r.id = p.report_id WHERE r.deleted_time IS NULL"
        ).int ?? -1
    #expect(Int(photoCount) == captured.reduce(0) { $0 + $1.photoHashes.count }, "photos on the platform")
    for report in captured {
        let ids = idByName[report.placeName] ?? []
        #expect(ids.count == 1, "\(report.placeName) is on the platform \(ids.count) times")
        guard let id = ids.first else { continue }
        let hashes = try db.query("SELECT sha256 FROM photo WHERE report_id = ? ORDER BY rowid", .text(id)).map {
            try $0.string("sha256") ?? ""
        }
        #expect(hashes == report.photoHashes, "photos of \(report.placeName), in order")
    }
}

/// The environment of a `har serve` process (HarProcess) on `dataDir`, sending to the platform
/// process with its consumer key, with fast retries so that a faulty queue drains quickly.
func serveEnvironment(
    dataDir: String, platform: PlatformProcess, workerEnabled: Bool = true, databaseURL: String? = nil
) -> [String: String] {
    var environment = [
        "HAR_PORT": "0", "HAR_DATA_DIR": dataDir, "HAR_PLATFORM_URL": platform.baseURL,
        "HAR_CONSUMER_KEY": PlatformProcess.key, "HAR_CONSUMER_SECRET": PlatformProcess.secret,
        "HAR_WORKER_ENABLED": workerEnabled ? "true" : "false",
        "HAR_WORKER_REPORTS_AT_ONCE": "8", "HAR_WORKER_PHOTOS_AT_ONCE": "4",
        "HAR_RETRY_BASE_SECONDS": "0.05", "HAR_RETRY_CAP_SECONDS": "1",
    ]
    if let databaseURL { environment["HAR_DATABASE_URL"] = databaseURL }
    return environment
}
