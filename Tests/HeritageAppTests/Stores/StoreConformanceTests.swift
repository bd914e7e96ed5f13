import Foundation
import PlatformClient
import TestSupport
import Testing

@testable import HeritageApp

/// A backend of the store protocols: how to open its stores on a fresh, empty database. Every test
/// below runs once per backend and talks to the stores only through their protocols, so a second
/// backend (PostgreSQL) is added here and passes the same tests.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    /// Opens the stores on a new database; `folder` is an empty folder the backend may use.
    let open: @Sendable (_ folder: String) throws -> Stores

    var testDescription: String { name }

    static let sqlite = StoreBackend(name: "SQLite") { folder in try Stores.sqlite(path: folder + "/har.sqlite") }

    /// A database of its own on the test process's throwaway PostgreSQL cluster (`PostgresCluster`).
    static let postgres = StoreBackend(name: "PostgreSQL") { _ in
        try Stores.postgres(url: try PostgresCluster.shared().makeDatabase(), poolSize: 4)
    }

    /// Both backends; SQLite alone (with a message) where PostgreSQL is not installed.
    static let all: [StoreBackend] = {
        guard PostgresCluster.isInstalled else {
            print("StoreConformanceTests: \(PostgresCluster.skipMessage)")
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }()
}

/// Fresh stores on an empty database in a folder of their own, closed and removed at the end.
final class StoreScene {
    let folder: String
    let stores: Stores
    /// The clock's time, whole seconds: the outbox's transitions stamp rows with the real clock.
    let now = Date().timeIntervalSince1970.rounded(.down)

    init(_ backend: StoreBackend) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-stores-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        stores = try backend.open(folder)
    }

    deinit {
        stores.close()
        try? FileManager.default.removeItem(atPath: folder)
    }

    static func hash(_ seed: UInt8) -> [UInt8] { Array(repeating: seed, count: 32) }

    /// Grants `role` to a user who signed in here and confirms it as an administrator does (REV-10: a
    /// grant never binds by itself), for the tests that need a role, not its binding.
    func grantConfirmed(_ email: String, _ role: Role = .coordinator) throws {
        try stores.review.grantConfirmed(email: email, role: role, accountID: "account-\(email)", now: now)
    }

    /// Signs a user in (the only way the app makes users) and returns the id.
    @discardableResult
    func user(_ email: String, session: String = "platform-session", token seed: UInt8 = 1, expires: Double? = nil)
        throws -> Int64
    {
        try stores.users.signIn(
            SignInRecord(
                email: email, accountID: "account-\(email)", fullname: "Full Name", platformSessionID: session,
                platformSessionExpiresAt: expires ?? now + 3600, tokenHash: Self.hash(seed), csrfToken: "csrf-\(seed)",
                replacingTokenHash: nil),
            now: now)
    }

    static func photo(_ id: String = UUID().uuidString.lowercased(), at fix: PhotoFix? = nil) -> NewPhoto {
        NewPhoto(
            localID: id, contentType: "image/jpeg", size: 1234, sha256: String(repeating: "ab", count: 32), width: 640,
            height: 480, fix: fix, capturedAt: "2026-05-01T10:00:00Z")
    }

    static let fields = ReportFields(
        name: "St Mary's Church", designation: "LPW", condition: "poor", occupancy: "vacant", priorityCategory: "A",
        ownerType: "private", grade: "II")

    /// A queued report of `photos` photos (made the way the screens make one), with its row id.
    func queuedReport(userID: Int64, photos: Int = 2, name: String? = nil) throws -> (id: Int64, localID: String) {
        let (draft, _) = try stores.drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        for index in 0..<photos {
            let fix = PhotoFix(latitude: 51.5 + Double(index) / 1000, longitude: -0.12, accuracy: 20 - Double(index))
            _ = try stores.drafts.addPhoto(Self.photo(at: fix), to: draft, now: now)
        }
        var fields = Self.fields
        if let name { fields.name = name }
        let result = try stores.drafts.submit(
            draftLocalID: draft.localID, userID: userID, fields: fields, token: UUID().uuidString, now: now)
        #expect(result == .queued)
        let id = try #require(try stores.outbox.reportID(localID: draft.localID))
        return (id, draft.localID)
    }
}

@Suite struct StoreConformanceTests {
    // MARK: Users and sessions

    @Test(arguments: StoreBackend.all) func signInMakesOneUserPerEmailAndRotatesSessions(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let users = scene.stores.users
        let id = try scene.user("volunteer@example.org", token: 1)
        let found = try #require(try users.session(tokenHash: StoreScene.hash(1), now: scene.now))
        #expect(found.user.id == id)
        #expect(found.user.email == "volunteer@example.org")
        #expect(found.user.fullname == "Full Name")
        #expect(found.user.platformSessionID == "platform-session")
        #expect(found.user.settings == UserSettings())
        #expect(found.session.csrfToken == "csrf-1")
        #expect(found.lastSeenAt == scene.now)

        // The same e-mail, in other letters' case, is the same user; the old session is replaced.
        let again = try users.signIn(
            SignInRecord(
                email: "Volunteer@Example.org", accountID: nil, fullname: nil, platformSessionID: "second",
                platformSessionExpiresAt: scene.now + 3600, tokenHash: StoreScene.hash(2), csrfToken: "csrf-2",
                replacingTokenHash: StoreScene.hash(1)),
            now: scene.now + 1)
        #expect(again == id)
        #expect(try users.session(tokenHash: StoreScene.hash(1), now: scene.now + 1) == nil)
        #expect(
            try users.session(tokenHash: StoreScene.hash(2), now: scene.now + 1)?.user.platformSessionID == "second")
        #expect(try scene.user("other@example.org", token: 3) != id)
    }

    @Test(arguments: StoreBackend.all) func sessionsExpireAreTouchedAndEnd(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let users = scene.stores.users
        let id = try scene.user("a@example.org", token: 1, expires: scene.now + 100)
        try scene.user("a@example.org", token: 2, expires: scene.now + 100)
        #expect(try users.session(tokenHash: StoreScene.hash(1), now: scene.now + 100) == nil, "expired")
        try users.touchSession(tokenHash: StoreScene.hash(2), now: scene.now + 50)
        #expect(try users.session(tokenHash: StoreScene.hash(2), now: scene.now + 60)?.lastSeenAt == scene.now + 50)

        try users.deleteSession(tokenHash: StoreScene.hash(2))
        #expect(try users.session(tokenHash: StoreScene.hash(2), now: scene.now) == nil)

        try scene.user("a@example.org", token: 3)
        try scene.user("a@example.org", token: 4)
        try users.endPlatformSession(userID: id)
        #expect(try users.session(tokenHash: StoreScene.hash(3), now: scene.now) == nil)
        #expect(try users.session(tokenHash: StoreScene.hash(4), now: scene.now) == nil)
        #expect(try scene.stores.outbox.session(userID: id) == nil, "the platform session is forgotten")
    }

    @Test(arguments: StoreBackend.all) func settingsAreSavedPerUser(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let id = try scene.user("a@example.org", token: 1)
        try scene.user("b@example.org", token: 2)
        let settings = UserSettings(gpsAccuracyMetres: 5, gpsAlertSeconds: 120, wirelessOnly: true)
        try scene.stores.settings.save(settings: settings, userID: id, now: scene.now)
        #expect(
            try scene.stores.users.session(tokenHash: StoreScene.hash(1), now: scene.now)?.user.settings == settings)
        #expect(
            try scene.stores.users.session(tokenHash: StoreScene.hash(2), now: scene.now)?.user.settings
                == UserSettings())
    }

    // MARK: Instance

    @Test(arguments: StoreBackend.all) func thePlatformIsClaimedOnceReportsExist(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let instance = scene.stores.instance
        #expect(instance.isHealthy())
        #expect(try instance.claimPlatform("embedded") == nil)
        #expect(try instance.claimPlatform("embedded") == nil)
        // No report yet: another platform may take the folder over.
        #expect(try instance.claimPlatform("https://api.example.org") == nil)
        let userID = try scene.user("a@example.org")
        _ = try scene.stores.drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        #expect(try instance.claimPlatform("embedded") == nil, "a draft is not a report of a platform")
        _ = try scene.queuedReport(userID: userID)
        #expect(try instance.claimPlatform("https://api.example.org") == "embedded")
        #expect(try instance.claimPlatform("embedded") == nil)
    }

    @Test(arguments: StoreBackend.all) func aClosedStoreIsUnhealthyAndThrowsStoreError(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        scene.stores.close()
        #expect(!scene.stores.instance.isHealthy())
        #expect(throws: StoreError.self) { try scene.stores.outbox.countsByState() }
    }

    // MARK: Drafts and photos

    @Test(arguments: StoreBackend.all) func aDraftIsOpenedOnceAndHoldsItsPhotosInOrder(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let drafts = scene.stores.drafts
        let userID = try scene.user("a@example.org")
        let (draft, isNew) = try drafts.openDraft(userID: userID, now: scene.now, freshSince: scene.now - 10)
        #expect(isNew)
        let (same, sameIsNew) = try drafts.openDraft(userID: userID, now: scene.now + 5, freshSince: scene.now - 10)
        #expect(!sameIsNew)
        #expect(same.localID == draft.localID)
        #expect(same.updatedAt == scene.now + 5)
        // One untouched since before the cutoff is not taken up again.
        #expect(try drafts.openDraft(userID: userID, now: scene.now + 100, freshSince: scene.now + 50).1)

        let first = StoreScene.photo(at: PhotoFix(latitude: 51.5, longitude: -0.12, accuracy: 8, altitude: 30))
        #expect(try drafts.addPhoto(first, to: draft, now: scene.now) == .added(position: 0))
        let second = StoreScene.photo()
        #expect(try drafts.addPhoto(second, to: draft, now: scene.now) == .added(position: 1))
        let photos = try drafts.photos(reportID: draft.id)
        #expect(photos.map(\.localID) == [first.localID, second.localID])
        #expect(photos[0].latitude == 51.5 && photos[0].longitude == -0.12 && photos[0].accuracy == 8)
        #expect(photos[1].latitude == nil)
        #expect(try drafts.photoCount(reportID: draft.id) == 2)
        #expect(try drafts.photo(localID: first.localID, draft: draft).photo?.position == 0)
        #expect(try drafts.ownedPhotoType(localID: first.localID, userID: userID) == "image/jpeg")

        // A photo id taken is a conflict, also from another draft, which sees it as someone else's.
        let conflict = #expect(throws: StoreError.self) {
            try drafts.addPhoto(StoreScene.photo(first.localID), to: draft, now: scene.now)
        }
        #expect(conflict?.isConflict == true)
        let other = try scene.user("b@example.org", token: 2)
        let (otherDraft, _) = try drafts.openDraft(userID: other, now: scene.now, freshSince: 0)
        #expect(try drafts.photo(localID: first.localID, draft: otherDraft).ownedElsewhere)
        #expect(try drafts.ownedPhotoType(localID: first.localID, userID: other) == nil)
        #expect(try drafts.draft(localID: draft.localID, userID: other) == nil)

        #expect(try drafts.deletePhoto(localID: first.localID, draft: draft, now: scene.now))
        #expect(try !drafts.deletePhoto(localID: first.localID, draft: draft, now: scene.now))
        #expect(try drafts.photoCount(reportID: draft.id) == 1)
    }

    @Test(arguments: StoreBackend.all) func aDraftTakesAtMostTwentyPhotos(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let userID = try scene.user("a@example.org")
        let (draft, _) = try scene.stores.drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        for position in 0..<Draft.maximumPhotos {
            #expect(
                try scene.stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now)
                    == .added(position: position))
        }
        #expect(try scene.stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now) == .full)
    }

    @Test(arguments: StoreBackend.all) func submitQueuesOnceAtTheBestFix(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let drafts = scene.stores.drafts
        let userID = try scene.user("a@example.org")
        let (draft, _) = try drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        #expect(
            try drafts.submit(
                draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "t0", now: scene.now)
                == .noPhotos)
        _ = try drafts.addPhoto(
            StoreScene.photo(at: PhotoFix(latitude: 10, longitude: 10, accuracy: 50)), to: draft, now: scene.now)
        _ = try drafts.addPhoto(
            StoreScene.photo(at: PhotoFix(latitude: 20, longitude: 20, accuracy: 5)), to: draft, now: scene.now)
        let submit = {
            try drafts.submit(
                draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "t1", now: scene.now)
        }
        #expect(try submit() == .queued)
        #expect(try submit() == .alreadySubmitted)
        #expect(try drafts.draft(localID: draft.localID, userID: userID) == nil, "no longer a draft")
        #expect(
            try drafts.submit(
                draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "t2", now: scene.now)
                == .gone)

        let id = try #require(try scene.stores.outbox.reportID(localID: draft.localID))
        let report = try #require(try scene.stores.outbox.report(id: id))
        #expect(report.state == .queued)
        #expect(report.name == "St Mary's Church" && report.grade == "II" && report.designation == "LPW")
        #expect(report.latitude == 20 && report.longitude == 20 && report.accuracy == 5)
        #expect(try scene.stores.outbox.photos(reportID: id).map(\.position) == [0, 1])
        #expect(
            try drafts.namedPlaces(userID: userID, limit: 10).contains(
                NamedPlace(name: "St Mary's Church", latitude: 20, longitude: 20)))
        #expect(try drafts.namedPlaces(userID: userID + 1, limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.all) func abandonedDraftsAreSweptAndRememberedOnce(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let drafts = scene.stores.drafts
        let userID = try scene.user("a@example.org")
        let (old, _) = try drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        let photo = StoreScene.photo()
        _ = try drafts.addPhoto(photo, to: old, now: scene.now)
        let later = scene.now + 1000
        #expect(try drafts.sweepDrafts(untouchedSince: later - 500, now: later, forgetBefore: 0) == [photo.localID])
        #expect(try drafts.draft(localID: old.localID, userID: userID) == nil)
        let expired = try #require(try drafts.expiredDraft(localID: old.localID, userID: userID))
        #expect(expired == ExpiredDraft(localID: old.localID, photoCount: 1, expiredAt: later))
        #expect(try drafts.expiredDraft(localID: old.localID, userID: userID + 1) == nil)
        #expect(try drafts.announceExpiry(userID: userID, now: later)?.localID == old.localID)
        #expect(try drafts.announceExpiry(userID: userID, now: later) == nil, "told once")
        // Forgotten after the memory.
        _ = try drafts.sweepDrafts(untouchedSince: 0, now: later + 10, forgetBefore: later + 1)
        #expect(try drafts.expiredDraft(localID: old.localID, userID: userID) == nil)

        let (current, _) = try drafts.openDraft(userID: userID, now: later, freshSince: 0)
        let kept = StoreScene.photo()
        _ = try drafts.addPhoto(kept, to: current, now: later)
        try drafts.markAnnounced(localID: current.localID, userID: userID, now: later)
        #expect(try drafts.cancelDrafts(userID: userID) == [kept.localID])
        #expect(try drafts.draft(localID: current.localID, userID: userID) == nil)
        #expect(try drafts.expiredDraft(localID: current.localID, userID: userID) == nil, "a cancel is no expiry")
    }
}

extension ReviewStore {
    /// A grant to the account that signed in with `email`, confirmed by `cli:op` (REV-10).
    func grantConfirmed(email: String, role: Role, accountID: String, now: Double) throws {
        try grant(email: email, role: role, actor: "cli:op", now: now)
        _ = try confirm(email: email, accountID: accountID, actor: "cli:op", now: now)
    }
}
