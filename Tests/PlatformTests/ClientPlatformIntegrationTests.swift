import Foundation
import Testing

@testable import LocalPlatform
@testable import PlatformClient

/// The client against a running local platform over real sockets.
@Suite(.serialized) struct ClientPlatformIntegrationTests {
    final class Running {
        let server: LocalPlatformServer
        let client: PlatformClient
        let directory: String

        init(
            faults: FaultConfiguration = FaultConfiguration(), photoLimit: Int = 30 << 20, secret: String? = nil,
            totalTimeout: Double = 60
        ) throws {
            directory = try TestSupport.temporaryDirectory()
            server = try LocalPlatformServer(
                configuration: LocalPlatformConfiguration(
                    apps: [LocalPlatformHarness.key: LocalPlatformHarness.secret], photoLimitBytes: photoLimit,
                    dataDirectory: directory + "/data", passwordIterations: 1000, faults: faults),
                databasePath: directory + "/platform.sqlite")
            try server.start()
            client = try PlatformClient(
                configuration: PlatformConfiguration(
                    baseURL: server.baseURL, consumerKey: LocalPlatformHarness.key,
                    consumerSecret: secret ?? LocalPlatformHarness.secret, totalTimeout: totalTimeout))
        }

        deinit { server.stop() }

        func photo(bytes: [UInt8]) throws -> PhotoUpload {
            let path = directory + "/photo-\(UUID().uuidString).jpg"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return PhotoUpload(
                filePath: path, contentType: "image/jpeg", latitude: 48.853, longitude: 2.349,
                accuracy: 5, capturedAt: Date(timeIntervalSince1970: 1_795_963_277))
        }
    }

    static let report = NewReport(
        condition: .poor, designation: .listedPlaceOfWorship, grade: .twoStar, occupancy: .partOccupied,
        ownerType: .religiousOrganization, placeName: "Église Saint-Étienne — façade", priorityCategory: .c,
        location: Location(latitude: 48.853, longitude: 2.349, accuracy: 8, altitude: 35), isAnonymous: true)

    @Test func everyEndpointEndToEnd() async throws {
        let p = try Running()
        let session = try await p.client.signIn(email: "alice@example.org", password: "correct horse")
        #expect(session.sessionID.count == 64 && session.expirationTime != nil)
        let created = try await p.client.createReport(Self.report, idempotencyKey: UUID().uuidString, session: session)
        let bytes = [UInt8].jpeg(size: 200_000)
        let photo = try await p.client.uploadPhoto(
            reportID: created.reportID, photo: try p.photo(bytes: bytes),
            idempotencyKey: UUID().uuidString, session: session)
        #expect(photo.reportID == created.reportID)
        let listed = try await p.client.listReports(session: session)
        #expect(listed.map(\.reportID) == [created.reportID])
        #expect(listed.first?.name == Self.report.placeName)
        #expect(listed.first?.grade == "II*" && listed.first?.isAnonymous == true)
        #expect(listed.first?.photos?.first?.sha256 == SHA256Stream.hash(bytes))
        try await p.client.deleteReport(reportID: created.reportID, session: session)
        #expect(try await p.client.listReports(session: session).isEmpty)
    }

    @Test func errorsAsTheClientSeesThem() async throws {
        let p = try Running(photoLimit: 10_000)
        let alice = try await p.client.signIn(email: "alice@example.org", password: "pw-alice-1")
        let bob = try await p.client.signIn(email: "bob@example.org", password: "pw-bob-12")
        await #expect(throws: PlatformError.authenticationFailed(message: "wrong e-mail address or password")) {
            _ = try await p.client.signIn(email: "alice@example.org", password: "nope")
        }
        let id = try await p.client.createReport(Self.report, idempotencyKey: "k", session: alice).reportID
        await #expect(throws: PlatformError.forbidden(message: "the report belongs to another account")) {
            try await p.client.deleteReport(reportID: id, session: bob)
        }
        await #expect(throws: PlatformError.sessionExpired) {
            _ = try await p.client.listReports(session: PlatformSession(sessionID: "deadbeef"))
        }
        do {
            _ = try await p.client.uploadPhoto(
                reportID: id, photo: try p.photo(bytes: .jpeg(size: 10_001)),
                idempotencyKey: "big", session: alice)
            Issue.record("expected 413")
        } catch let error as PlatformError {
            guard case .payloadTooLarge = error else {
                Issue.record("got \(error)")
                return
            }
        }
        await #expect(
            throws: PlatformError.conflict(message: "the Idempotency-Key was already used with another request body")
        ) {
            var other = Self.report
            other.condition = .good
            _ = try await p.client.createReport(other, idempotencyKey: "k", session: alice)
        }
        // Same key, same body: the first answer, no duplicate.
        #expect(try await p.client.createReport(Self.report, idempotencyKey: "k", session: alice).reportID == id)
        try await p.client.deleteReport(reportID: id, session: alice)
        await #expect(throws: PlatformError.notFound(message: "no such report")) {
            try await p.client.deleteReport(reportID: id, session: alice)
        }
        let wrongSecret = try PlatformClient(
            configuration: PlatformConfiguration(
                baseURL: p.server.baseURL, consumerKey: LocalPlatformHarness.key, consumerSecret: "wrong"))
        await #expect(
            throws: PlatformError.rejected(
                status: 401, error: "InvalidSignatureException",
                message: "the signature does not match")
        ) {
            _ = try await wrongSecret.signIn(email: "alice@example.org", password: "pw-alice-1")
        }
    }

    @Test func injectedFailuresAreRetryLater() async throws {
        var faults = FaultConfiguration()
        faults.fail5xx = 1
        let p = try Running(faults: faults)
        do {
            _ = try await p.client.signIn(email: "a@example.org", password: "long enough")
            Issue.record("expected a failure")
        } catch let error as PlatformError {
            #expect(error.shouldRetryLater)
        }
    }

    @Test func injected429IsRetryLater() async throws {
        var faults = FaultConfiguration()
        faults.fail429 = 1
        let p = try Running(faults: faults)
        do {
            _ = try await p.client.signIn(email: "a@example.org", password: "long enough")
            Issue.record("expected a failure")
        } catch let error as PlatformError {
            guard case .retryLater = error else {
                Issue.record("429 should be retry later, got \(error)")
                return
            }
            #expect(!error.mayHaveBeenProcessed)
            #expect(error.retryAfter == 1)
        }
    }

    @Test func injectedLatencyPastTheClientsTimeoutIsRetryLater() async throws {
        var faults = FaultConfiguration()
        faults.latencyMilliseconds = 3000
        let p = try Running(faults: faults, totalTimeout: 1)
        do {
            _ = try await p.client.signIn(email: "a@example.org", password: "long enough")
            Issue.record("expected a failure")
        } catch let error as PlatformError {
            #expect(error.shouldRetryLater, "\(error)")
        }
    }

    @Test func injectedLowerPhotoLimitIsPayloadTooLarge() async throws {
        var faults = FaultConfiguration()
        faults.photoLimitBytes = 1000
        let p = try Running(faults: faults)
        let session = try await p.client.signIn(email: "small@example.org", password: "long enough")
        let id = try await p.client.createReport(Self.report, idempotencyKey: UUID().uuidString, session: session)
            .reportID
        await #expect(throws: PlatformError.self) {
            _ = try await p.client.uploadPhoto(
                reportID: id, photo: try p.photo(bytes: .jpeg(size: 5000)), idempotencyKey: UUID().uuidString,
                session: session)
        }
        do {
            _ = try await p.client.uploadPhoto(
                reportID: id, photo: try p.photo(bytes: .jpeg(size: 5000)), idempotencyKey: UUID().uuidString,
                session: session)
        } catch let error as PlatformError {
            guard case .payloadTooLarge = error else {
                Issue.record("expected payloadTooLarge, got \(error)")
                return
            }
        }
    }

    @Test func droppedAnswerIsOutcomeUnknown() async throws {
        var faults = FaultConfiguration()
        faults.drop = 1
        let p = try Running(faults: faults, totalTimeout: 5)
        do {
            _ = try await p.client.signIn(email: "a@example.org", password: "long enough")
            Issue.record("expected a failure")
        } catch let error as PlatformError {
            #expect(error.mayHaveBeenProcessed && error.shouldRetryLater, "\(error)")
        }
    }

    @Test func photoOf25MBKeepsItsHash() async throws {
        let p = try Running()
        let session = try await p.client.signIn(email: "big@example.org", password: "long enough")
        let id = try await p.client.createReport(Self.report, idempotencyKey: UUID().uuidString, session: session)
            .reportID
        let bytes = [UInt8].jpeg(size: 25 << 20)
        _ = try await p.client.uploadPhoto(
            reportID: id, photo: try p.photo(bytes: bytes),
            idempotencyKey: UUID().uuidString, session: session)
        let listed = try await p.client.listReports(session: session)
        #expect(listed.first?.photos?.first?.size == 25 << 20)
        #expect(listed.first?.photos?.first?.sha256 == SHA256Stream.hash(bytes))
    }
}
