import Foundation
import Platform
import Storage
import Testing

@testable import HeritageApp

/// A `har` process of the built binary (`platform` or `serve`), its output in files (a pipe nobody
/// drains would block it), killed with SIGKILL at the end if still running.
final class HarProcess: @unchecked Sendable {
    let process = Process()
    let outputPath: String
    let errorPath: String

    init(_ arguments: [String], environment extra: [String: String], folder: String) throws {
        outputPath = folder + "/\(arguments[0])-\(UUID().uuidString).out"
        errorPath = outputPath + ".err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: TestPaths.harExecutable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: TestPaths.packageRoot)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAR_") }
        environment["HAR_ACCESS_LOG"] = "false"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    /// The port from the "listening on http://127.0.0.1:PORT" line (stdout for `platform`, stderr for `serve`).
    func waitForPort(timeout: Double = 30) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for path in [outputPath, errorPath] {
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                if let range = text.range(of: #"listening on https?://127\.0\.0\.1:\d+"#, options: .regularExpression),
                    let port = Int(text[range].split(separator: ":").last ?? "")
                {
                    return port
                }
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        throw TestFailure("har \(process.arguments ?? []) did not start: \(errors)")
    }

    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }

    func killHard() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { killHard() }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The local platform as its own process, with its own data folder and SQLite file, on a port that
/// can be reused after a restart (test 3 stops it and starts it again).
final class PlatformProcess: @unchecked Sendable {
    static let key = "worker-test-key"
    static let secret = "d29ya2VyLXRlc3Qtc2VjcmV0LW5vdC1yZWFs"
    let folder: String
    let faults: String?
    let sessionTTL: Int
    private(set) var port = 0
    private var running: HarProcess?

    init(folder: String, faults: String? = nil, sessionTTL: Int = 86_400) throws {
        self.folder = folder + "/platform"
        self.faults = faults
        self.sessionTTL = sessionTTL
        try FileManager.default.createDirectory(atPath: self.folder, withIntermediateDirectories: true)
        try start()
    }

    func start() throws {
        var environment = [
            "HAR_PLATFORM_PORT": String(port), "HAR_PLATFORM_APPS": "\(Self.key):\(Self.secret)",
            "HAR_DATA_DIR": folder, "HAR_PLATFORM_SESSION_TTL": String(sessionTTL),
        ]
        if let faults { environment["HAR_PLATFORM_FAULTS"] = faults }
        let process = try HarProcess(["platform"], environment: environment, folder: folder)
        port = try process.waitForPort()
        running = process
    }

    func stop() {
        running?.terminate()
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

    deinit { running?.killHard() }
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
    let pool: DatabasePool
    private(set) var userID: Int64 = 0
    private(set) var captured: [CapturedReport] = []

    init(dataDir: String) throws {
        self.dataDir = dataDir
        try FileManager.default.createDirectory(atPath: dataDir + "/photos", withIntermediateDirectories: true)
        pool = try DatabasePool(path: dataDir + "/har.sqlite", configuration: .init(migrations: AppMigrations.all))
    }

    func addUser(email: String, session: PlatformSession) throws {
        let now = Date().timeIntervalSince1970
        userID = try pool.write { db in
            _ = try db.run(
                """
                INSERT INTO users (email, platform_session_id, platform_session_expires_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                """, .text(email), .text(session.sessionID),
                SQLValue(session.expirationTime?.timeIntervalSince1970), .real(now), .real(now))
            return try db.scalar("SELECT id FROM users WHERE email = ?", .text(email)).int ?? 0
        }
    }

    /// A sign-in as the screens record it: the user's platform session replaced.
    func updateSession(_ session: PlatformSession) throws {
        try pool.write { db in
            _ = try db.run(
                "UPDATE users SET platform_session_id = ?, platform_session_expires_at = ? WHERE id = ?",
                .text(session.sessionID), SQLValue(session.expirationTime?.timeIntervalSince1970), .integer(userID))
        }
    }

    /// `count` queued reports of `photos` photos each (small real-looking JPEG files).
    func queueReports(_ count: Int, photos: Int = 3, latitude: Double = 51.5, tag: String = "") throws {
        for index in 0..<count {
            let localID = UUID().uuidString.lowercased()
            let placeName = "Chapel \(tag)\(captured.count + 1) \(localID.prefix(8))"
            var hashes: [String] = []
            let now = Date().timeIntervalSince1970
            let id = try pool.write { db -> Int64 in
                _ = try db.run(
                    """
                    INSERT INTO reports (user_id, local_id, state, name, designation, condition, occupancy,
                        priority_category, owner_type, grade, latitude, longitude, accuracy, creation_time,
                        submitted_at, updated_at)
                    VALUES (?, ?, 'queued', ?, 'LB', 'poor', 'vacant', 'A', 'private', 'II', ?, ?, 8, ?, ?, ?)
                    """, .integer(userID), .text(localID), .text(placeName), .real(latitude),
                    .real(-0.12 - Double(index) / 1000), .real(now), .real(now), .real(now))
                let reportID = try db.scalar("SELECT id FROM reports WHERE local_id = ?", .text(localID)).int ?? 0
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
                        """, .integer(reportID), .text(photoID), .integer(Int64(position)),
                        .integer(Int64(bytes.count)),
                        .text(sha), .real(now))
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

    func states() throws -> [String: Int] { try OutboxStore(pool: pool).countsByState() }

    func state(of localID: String) throws -> (state: String, lastError: String?) {
        try pool.read { db in
            let row = try db.query("SELECT state, last_error FROM reports WHERE local_id = ?", .text(localID)).first
            return (try row?.string("state") ?? "", try row?.string("last_error"))
        }
    }

    func execute(_ sql: String) throws {
        try pool.write { db in try db.execute(sql) }
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
            store: OutboxStore(pool: pool), client: try platform.client(concurrentTransfers: reportsAtOnce + 1),
            settings: settings, dataDirectory: dataDir, metrics: WorkerMetrics(), log: Log())
    }
}

/// Waits for a condition, checking every 100 ms; throws after `timeout` seconds (generous: this is
/// not a timing assertion, only a bound on a hung test).
func waitUntil(_ what: String, timeout: Double = 120, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw TestFailure("timed out waiting until \(what)")
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
