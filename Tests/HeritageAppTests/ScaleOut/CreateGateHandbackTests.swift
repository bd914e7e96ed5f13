import Foundation
import PlatformClient
import PostgresStorage
import Testing

@testable import HeritageApp

/// Two nodes' workers on one PostgreSQL database: a report whose create gate another node
/// holds (an identical report of the same user being created there) is handed back at once, not
/// waited on with its lease held, while the two nodes deliver everything else; once the gate is free
/// it is delivered too, once.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct CreateGateHandbackTests {
    @Test func aHeldCreateGateHandsTheReportBackAndTheNodesGoOn() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let session = try await platform.signIn(email: "gate@example.org")
        let url = try PostgresCluster.shared().makeDatabase()
        let nodes = try (0..<2).map { _ in try Stores.postgres(url: url, poolSize: 2) }
        defer { for node in nodes { node.close() } }
        let queue = try PostgresQueue(url: url, photos: folder + "/photos", session: session)
        let twins = try (0..<2).map { _ in try queue.add(name: "Chapel of the twins") }
        let others = try (0..<6).map { try queue.add(name: "Chapel \($0)") }

        // A third node ("c") creates the first twin: it holds the report's lease and its create gate.
        let outbox = nodes[0].outbox
        let body = try #require(try outbox.report(id: twins[0])?.newReport().get().jsonBytes())
        let key = "\(queue.userID) " + SHA256Stream.hash(body)
        #expect(try #require(try outbox.report(id: twins[1])?.newReport().get().jsonBytes()) == body)
        let now = Date().timeIntervalSince1970
        let holder = try #require(try nodes[0].leases.claim(node: "c", now: now, duration: 3600, limit: 1).first)
        #expect(holder.reportID == twins[0])
        #expect(try nodes[0].leases.takeCreateGate(key, lease: holder, now: now))

        let workers = try ["a", "b"].enumerated().map { index, name in
            var settings = WorkerSettings()
            settings.nodeID = name
            settings.reportsAtOnce = 2
            settings.photosAtOnce = 2
            settings.pollSeconds = 0.2
            settings.retryBaseSeconds = 0.05
            settings.retryCapSeconds = 1
            return UploadWorker(
                store: nodes[index].outbox, leases: nodes[index].leases, client: try platform.client(),
                settings: settings, dataDirectory: folder + "/node-\(name)", metrics: WorkerMetrics(), log: Log(),
                photosDirectory: folder + "/photos")
        }
        for worker in workers { worker.start() }
        defer { for worker in workers { worker.stop() } }

        // Every other report is delivered while the gate is held; the second twin was handed back:
        // queued as it was, no lease, no attempt, no delivery attempt recorded.
        try await waitUntil("the other reports are stored") {
            try others.allSatisfy { try outbox.report(id: $0)?.state == .stored }
        }
        let handbacks = workers.map { Self.counter("har_worker_gate_handbacks_total", in: $0.metricsText()) }
        #expect(handbacks.reduce(0, +) >= 1, "the second twin was claimed and handed back")
        let waiting = try #require(try outbox.report(id: twins[1]))
        #expect(waiting.state == .queued && waiting.attempts == 0 && waiting.createAttemptedAt == nil)
        #expect(try nodes[0].review.deliveryAttempts(reportID: twins[1], limit: 50).isEmpty)
        let leased = try queue.connection.scalar(
            "SELECT count(*) FROM reports WHERE id = ? AND lease_until IS NOT NULL", .integer(twins[1])
        ).int
        #expect(leased == 0, "not held while the gate is another's")
        #expect(
            try queue.connection.scalar("SELECT create_gate FROM reports WHERE id = ?", .integer(twins[1])).string
                == key)

        // Node c finishes without creating (its lease given up): both twins go, each once.
        try nodes[0].leases.releaseCreateGate(key, lease: holder)
        #expect(try nodes[0].leases.release(holder))
        for worker in workers { worker.wake() }
        try await waitUntil("the twins are stored") {
            try twins.allSatisfy { try outbox.report(id: $0)?.state == .stored }
        }
        let platformIDs = try twins.map { try #require(try outbox.report(id: $0)?.platformReportID) }
        #expect(Set(platformIDs).count == 2, "two reports on the platform, one per twin")
    }

    /// The value of a counter in `/metrics` text.
    static func counter(_ name: String, in text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }
}

/// Queued reports written straight into a PostgreSQL database, as submission leaves them: one user
/// with a platform session, photo files in `photos`.
private final class PostgresQueue {
    let connection: PostgresConnection
    let photos: String
    let userID: Int64

    init(url: String, photos: String, session: PlatformSession) throws {
        connection = try PostgresConnection(url)
        self.photos = photos
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let now = Date().timeIntervalSince1970
        userID =
            try connection.scalar(
                """
                INSERT INTO users (email, platform_session_id, platform_session_expires_at, created_at, updated_at)
                VALUES ('gate@example.org', ?, ?, ?, ?) RETURNING id
                """, .text(session.sessionID), .real(now + 86_400), .real(now), .real(now)
            ).int ?? 0
    }

    /// A queued report with two photos; its row id.
    func add(name: String) throws -> Int64 {
        let now = Date().timeIntervalSince1970
        let id =
            try connection.scalar(
                """
                INSERT INTO reports (user_id, local_id, state, name, designation, condition, occupancy,
                    priority_category, owner_type, grade, latitude, longitude, accuracy, creation_time,
                    submitted_at, updated_at)
                VALUES (?, ?, 'queued', ?, 'LB', 'poor', 'vacant', 'A', 'private', 'II', 51.5, -0.12, 8, ?, ?, ?)
                RETURNING id
                """, .integer(userID), .text(UUID().uuidString.lowercased()), .text(name), .real(now), .real(now),
                .real(now)
            ).int ?? 0
        for position in 0..<2 {
            let photoID = UUID().uuidString.lowercased()
            let bytes = OutboxFixture.jpegBytes(size: 20_000)
            guard FileManager.default.createFile(atPath: photos + "/" + photoID, contents: Data(bytes)) else {
                throw TestFailure("cannot write a photo")
            }
            try connection.run(
                """
                INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, latitude, longitude,
                    captured_at, created_at)
                VALUES (?, ?, ?, 'image/jpeg', ?, ?, 51.5, -0.12, '2026-05-01T10:00:00Z', ?)
                """, .integer(id), .text(photoID), .integer(Int64(position)), .integer(Int64(bytes.count)),
                .text(SHA256Stream.hash(bytes)), .real(now))
        }
        return id
    }
}
