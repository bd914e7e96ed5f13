import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// SITE-01: the register goes into backups (the SQLite snapshot with its R*Tree, PostgreSQL's dump with
/// its GiST index) and comes back whole: counted in the manifest, the same sites after a restore, the
/// nearest found through the restored index; and `har migrate sqlite-to-postgres` carries it over.
@Suite struct SiteBackupTests {
    static func features() -> String {
        GeoJSONText.collection(
            (1...25).map { GeoJSONText.point("B\($0)", "Backed up \($0)", lat: 55 + Double($0) / 1000, lon: -2) } + [
                GeoJSONText.feature(
                    "B26", "Outlined",
                    geometry:
                        #"{"type": "Polygon", "coordinates": [[[-2, 56], [-1.99, 56], [-1.99, 56.01], [-2, 56]]]}"#)
            ])
    }

    @Test(arguments: StoreBackend.all) func site01BackupAndRestoreKeepTheRegister(_ backend: StoreBackend) async throws
    {
        let scene = try SiteCommandScene(backend)
        let imported = try await scene.har(["import", try scene.file("backup.geojson", Self.features())])
        try #require(imported.status == 0, "\(imported.stderr)")
        let before = try scene.register()
        try #require(before.count == 26)

        let archive = scene.folder + "/sites.tar"
        let created = try await runHar(["backup", "create", "--to", archive], environment: scene.environment)
        try #require(created.status == 0, "\(created.stderr)")
        #expect(try await manifest(of: archive).rowCounts["sites"] == 26)
        let verified = try await runHar(["backup", "verify", archive], environment: scene.environment)
        #expect(verified.status == 0, "\(verified.stderr)")

        var restoredEnvironment = scene.environment
        let restoredStores: () throws -> Stores
        if scene.databaseURL != nil {
            let target = try PostgresCluster.shared().makeDatabase()
            restoredEnvironment["HAR_DATABASE_URL"] = target
            restoredEnvironment["HAR_PHOTO_DIR"] = scene.folder + "/restored-photos"
            let restored = try await runHar(["backup", "restore", archive], environment: restoredEnvironment)
            try #require(restored.status == 0, "\(restored.stderr)")
            restoredStores = { try Stores.postgres(url: target, poolSize: 1) }
        } else {
            let fresh = scene.folder + "/restored"
            let restored = try await runHar(
                ["backup", "restore", archive, "--data-dir", fresh], environment: scene.environment)
            try #require(restored.status == 0, "\(restored.stderr)")
            restoredStores = { try Stores.sqlite(path: fresh + "/har.sqlite") }
        }
        let stores = try restoredStores()
        defer { stores.close() }
        let after = try stores.sites.list(near: nil, limit: 100, offset: 0).map(\.site).sorted {
            ($0.reference ?? "", $0.id) < ($1.reference ?? "", $1.id)
        }
        #expect(after == before)
        let nearest = try stores.sites.nearest(latitude: 55.0121, longitude: -2, limit: 2, withinMeters: nil)
        #expect(nearest.map(\.site.reference) == ["B12", "B13"])
        let made = try stores.sites.create(
            NewSite(reference: nil, name: "After the restore", latitude: 55.5, longitude: -2, source: .coordinator),
            now: 1)
        #expect(made.id > before.map(\.id).max() ?? .max, "ids go on after the restored ones")
    }

    /// SITE-01: a single node's register moves to PostgreSQL with `har migrate sqlite-to-postgres`,
    /// ids kept, found by the nearest look-up there.
    @Test(.enabled(if: PostgresCluster.isInstalled)) func site01SQLiteToPostgresCarriesTheRegister() async throws {
        let scene = try SiteCommandScene(.sqlite)
        let imported = try await scene.har(["import", try scene.file("move.geojson", Self.features())])
        try #require(imported.status == 0, "\(imported.stderr)")
        let before = try scene.register()
        let url = try PostgresCluster.shared().makeDatabase()
        var environment = scene.environment
        environment["HAR_DATABASE_URL"] = url
        let moved = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", scene.folder + "/data"], environment: environment)
        try #require(moved.status == 0, "\(moved.stderr)")
        let stores = try Stores.postgres(url: url, poolSize: 1)
        defer { stores.close() }
        let after = try stores.sites.list(near: nil, limit: 100, offset: 0).map(\.site).sorted {
            ($0.reference ?? "", $0.id) < ($1.reference ?? "", $1.id)
        }
        #expect(after == before)
        #expect(
            try stores.sites.nearest(latitude: 55.0121, longitude: -2, limit: 1, withinMeters: nil).first?.site
                .reference
                == "B12")
        let made = try stores.sites.create(NewSite(reference: "NEW", name: "New", latitude: 1, longitude: 1), now: 1)
        #expect(made.id == 27)
    }
}
