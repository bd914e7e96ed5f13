import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The list's refresh (`ReportStore.merge`, what `POST /api/reports/refresh` does right after a
/// Submit) racing the upload worker, driven step by step: the platform lists a report the worker is
/// creating before the worker has recorded its id; a listing sent before the worker stored a report
/// is merged after. Against the real local platform process where the platform is involved.
@Suite(.serialized) struct ListRefreshRaceTests {
    /// A queued report of 3 photos whose create went through on the platform (with `idempotencyKey`,
    /// the worker's own key or another one, standing for a platform that ignores it), as if its answer
    /// were lost or not yet recorded: the row is `creating` with `create_attempted_at`, no platform id.
    struct Scene {
        let folder: String
        let platform: PlatformProcess
        let fixture: OutboxFixture
        let session: PlatformSession
        let report: CapturedReport
        let platformReportID: String
        var list: ReportList {
            ReportList(store: fixture.stores.reports, files: PhotoFiles(directory: fixture.dataDir + "/photos"))
        }
    }

    func scene(email: String, sameKey: Bool) async throws -> Scene {
        let folder = try TestPaths.temporaryDirectory()
        let platform = try await PlatformProcess(folder: folder)
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        let session = try await platform.signIn(email: email)
        try fixture.addUser(email: email, session: session)
        try fixture.queueReports(1)
        let report = try #require(fixture.captured.first)
        let store = fixture.stores.outbox
        #expect(try store.beginCreate(report.id))
        let row = try #require(try store.report(id: report.id))
        let created = try await platform.client().createReport(
            try row.newReport().get(), idempotencyKey: sameKey ? report.localID : UUID().uuidString.lowercased(),
            session: session)
        return Scene(
            folder: folder, platform: platform, fixture: fixture, session: session, report: report,
            platformReportID: created.reportID)
    }

    /// What the refresh did before the fix for a listed report no row claimed: a `stored` copy.
    func insertCopy(_ scene: Scene) throws {
        let now = Date().timeIntervalSince1970
        try scene.fixture.pool.write { db in
            _ = try db.run(
                """
                INSERT INTO reports (user_id, local_id, platform_report_id, state, name, formatted_address,
                    creation_time, updated_at)
                VALUES (?, ?, ?, 'stored', ?, '1 Church Lane', ?, ?)
                """, .integer(scene.fixture.userID), .text(UUID().uuidString.lowercased()),
                .text(scene.platformReportID), .text(scene.report.placeName), .real(now), .real(now))
        }
    }

    func rowCount(_ fixture: OutboxFixture, platformReportID: String) throws -> Int {
        try fixture.pool.read { db in
            Int(
                try db.scalar("SELECT count(*) FROM reports WHERE platform_report_id = ?", .text(platformReportID)).int
                    ?? -1)
        }
    }

    func runWorkerUntilSettled(_ scene: Scene) async throws {
        let worker = try scene.fixture.worker(platform: scene.platform)
        worker.start()
        try await waitUntil("the report is stored or needs attention") {
            ["stored", "needs_attention"].contains(try scene.fixture.state(of: scene.report.localID).state)
        }
        worker.stop()
    }

    func expectStoredWithEveryPhoto(_ scene: Scene) throws {
        let state = try scene.fixture.state(of: scene.report.localID)
        #expect(state.state == "stored", "\(state)")
        let photos = try scene.fixture.stores.outbox.photos(reportID: scene.report.id)
        #expect(photos.count == 3 && photos.allSatisfy { $0.state == .stored && $0.platformPhotoID != nil })
        let row = try scene.fixture.stores.outbox.report(id: scene.report.id)
        #expect(row?.platformReportID == scene.platformReportID)
        #expect(try rowCount(scene.fixture, platformReportID: scene.platformReportID) == 1)
        try checkPlatformHolds([scene.report], platformDatabase: scene.platform.databasePath)
    }

    /// Bug 1 (a): the refresh lists the report before the worker recorded its id; it keeps no copy
    /// of it (the worker's report in flight could be it), and the worker then records the id, sends
    /// every photo, and the platform holds one report.
    @Test func refreshDoesNotCopyAReportTheWorkerIsCreating() async throws {
        let scene = try await scene(email: "race-a@example.org", sameKey: true)
        defer { try? FileManager.default.removeItem(atPath: scene.folder) }
        let listingStartedAt = Date().timeIntervalSince1970
        let listed = try await scene.platform.client().listReports(session: scene.session)
        #expect(listed.map(\.reportID) == [scene.platformReportID])
        try scene.list.merge(
            listed, userID: scene.fixture.userID, now: Date().timeIntervalSince1970,
            listingStartedAt: listingStartedAt)
        #expect(try rowCount(scene.fixture, platformReportID: scene.platformReportID) == 0, "no copy of it")
        #expect(try scene.list.store.reports(userID: scene.fixture.userID).count == 1, "the list shows the one report")

        try await runWorkerUntilSettled(scene)
        try expectStoredWithEveryPhoto(scene)
        // A later refresh finds it by its id: still one row, stored.
        try scene.list.merge(
            try await scene.platform.client().listReports(session: scene.session), userID: scene.fixture.userID,
            now: Date().timeIntervalSince1970, listingStartedAt: Date().timeIntervalSince1970)
        try expectStoredWithEveryPhoto(scene)
        await scene.platform.stop()
    }

    /// Bug 1 (b), after a lost answer on a platform that ignores Idempotency-Key: a copy of the report
    /// the refresh kept is absorbed by reconciliation, not taken for another report's; the worker
    /// adopts the report instead of creating a duplicate, and sends every photo.
    @Test func reconciliationAbsorbsTheRefreshsCopyInsteadOfCreatingAgain() async throws {
        let scene = try await scene(email: "race-b@example.org", sameKey: false)
        defer { try? FileManager.default.removeItem(atPath: scene.folder) }
        try insertCopy(scene)
        try await runWorkerUntilSettled(scene)
        try expectStoredWithEveryPhoto(scene)
        let address = try scene.fixture.pool.read { db in
            try db.scalar("SELECT formatted_address FROM reports WHERE id = ?", .integer(scene.report.id)).string
        }
        #expect(address == "1 Church Lane", "what the copy knew is kept")
        await scene.platform.stop()
    }

    /// Bug 1 (b), the create answered (the platform honours the key, so creating again answers the
    /// same id): the copy is absorbed when the id is recorded, instead of the report going to needs
    /// attention with its photos never sent.
    @Test func recordingTheAnsweredIDAbsorbsTheRefreshsCopy() async throws {
        let scene = try await scene(email: "race-c@example.org", sameKey: true)
        defer { try? FileManager.default.removeItem(atPath: scene.folder) }
        try insertCopy(scene)
        // The reconciliation must not adopt through the copy here: make the attempt look later than
        // the platform's report, so the worker creates again and records the answer.
        try scene.fixture.execute(
            "UPDATE reports SET create_attempted_at = create_attempted_at + 3600 WHERE id = \(scene.report.id)")
        try await runWorkerUntilSettled(scene)
        try expectStoredWithEveryPhoto(scene)
        await scene.platform.stop()
    }

    /// `recordCreated` on its own: a copy (stored or deleted, never submitted, no create attempted,
    /// no photos) is absorbed; a real report holding the id is still refused.
    @Test func recordCreatedAbsorbsOnlyACopy() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(
            email: "unit@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        try fixture.queueReports(3, photos: 1)
        let store = fixture.stores.outbox
        let (mine, other, third) = (fixture.captured[0].id, fixture.captured[1].id, fixture.captured[2].id)
        for id in [mine, other, third] { #expect(try store.beginCreate(id)) }
        let now = Date().timeIntervalSince1970
        try fixture.pool.write { db in
            _ = try db.run(
                """
                INSERT INTO reports (user_id, local_id, platform_report_id, state, name, creation_time, updated_at)
                VALUES (?, 'copy-1', 'P1', 'deleted', 'x', ?, ?)
                """, .integer(fixture.userID), .real(now), .real(now))
        }
        #expect(try store.recordCreated(mine, platformReportID: "P1"))
        #expect(try store.report(id: mine)?.platformReportID == "P1")
        #expect(try store.report(id: mine)?.state == .created)
        #expect(try rowCount(fixture, platformReportID: "P1") == 1)
        // P1 is now a real report's: refused for another one.
        #expect(try !store.recordCreated(other, platformReportID: "P1"))
        #expect(try store.report(id: other)?.platformReportID == nil)
        #expect(try store.claimedReportIDs(among: ["P1"], userID: fixture.userID) == ["P1"])
        // A row with photos is never a copy, even stored, never submitted and no create attempted.
        try fixture.execute(
            "UPDATE reports SET state = 'stored', create_attempted_at = NULL, submitted_at = NULL WHERE id = \(mine)")
        #expect(try !store.recordCreated(third, platformReportID: "P1"))
    }

    /// Bug 2: a listing whose GET was sent before the worker stored a report does not mark that report
    /// deleted; an older stored row it does not list is; a deleted row it lists again is restored,
    /// unless it was deleted after the GET was sent.
    @Test func aListingOnlyJudgesRowsOlderThanItsRequest() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(
            email: "stale@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        let list = ReportList(store: fixture.stores.reports, files: PhotoFiles(directory: fixture.dataDir + "/photos"))
        let t0 = 1_800_000_000.0
        func add(_ platformID: String, state: String, updatedAt: Double) throws {
            try fixture.pool.write { db in
                _ = try db.run(
                    """
                    INSERT INTO reports (user_id, local_id, platform_report_id, state, name, creation_time, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, .integer(fixture.userID), .text("local-" + platformID), .text(platformID), .text(state),
                    .text(platformID), .real(t0 - 100), .real(updatedAt))
            }
        }
        try add("fresh", state: "stored", updatedAt: t0 + 1)  // the worker stored it after the GET was sent
        try add("gone", state: "stored", updatedAt: t0 - 50)  // deleted elsewhere
        try add("back", state: "deleted", updatedAt: t0 - 50)  // marked deleted, listed again
        try add("justDeleted", state: "deleted", updatedAt: t0 + 1)  // the user deleted it meanwhile
        let listed = ["back", "justDeleted"].map {
            PlatformReport(reportID: $0, creationTime: Date(timeIntervalSince1970: t0 - 100))
        }
        try list.merge(listed, userID: fixture.userID, now: t0 + 2, listingStartedAt: t0)
        let states = try fixture.pool.read { db in
            try Dictionary(
                uniqueKeysWithValues: db.query("SELECT platform_report_id, state FROM reports").map {
                    (try $0.string("platform_report_id") ?? "", try $0.string("state") ?? "")
                })
        }
        #expect(
            states == ["fresh": "stored", "gone": "deleted", "back": "stored", "justDeleted": "deleted"], "\(states)")
        // A later listing without "fresh" (sent after it was stored) does mark it deleted.
        try list.merge([], userID: fixture.userID, now: t0 + 4, listingStartedAt: t0 + 3)
        #expect(try fixture.state(of: "local-fresh").state == "deleted")
    }
}
