import Foundation
import Testing

@testable import HeritageApp

/// `SiteStore` through its protocol, once per backend: a site made and read back, the nearest sites by
/// great-circle distance through each engine's spatial index, the antimeridian and the poles, the list's
/// pages, and an import's upsert by reference in one transaction.
@Suite struct SiteStoreConformanceTests {
    static func site(_ reference: String?, _ name: String, _ latitude: Double, _ longitude: Double) -> NewSite {
        NewSite(
            reference: reference, name: name, designation: "LB", grade: "II", latitude: latitude, longitude: longitude)
    }

    /// SITE-01: a site is made with its codes, point and outline, and read back by id and reference; a
    /// second site with the same reference is refused, sites without one are many.
    @Test(arguments: StoreBackend.all) func site01CreateAndRead(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let sites = scene.stores.sites
        let outline = #"{"type":"Polygon","coordinates":[[[-0.1,51.5],[-0.09,51.5],[-0.09,51.51],[-0.1,51.5]]]}"#
        var new = Self.site("1000001", "St Mary's Chapel", 51.5, -0.1)
        new.outline = outline
        new.source = .coordinator
        let made = try sites.create(new, now: scene.now)
        #expect(made.reference == "1000001" && made.name == "St Mary's Chapel" && made.designation == "LB")
        #expect(made.grade == "II" && made.latitude == 51.5 && made.longitude == -0.1 && made.outline == outline)
        #expect(made.source == .coordinator && made.createdAt == scene.now && made.updatedAt == scene.now)
        #expect(try sites.site(id: made.id) == made)
        #expect(try sites.site(reference: "1000001") == made)
        #expect(try sites.site(id: made.id + 100) == nil)
        #expect(throws: StoreError.self) { try sites.create(Self.site("1000001", "Again", 50, 0), now: scene.now) }
        _ = try sites.create(Self.site(nil, "Made from a report", 50, 0), now: scene.now)
        _ = try sites.create(Self.site(nil, "Made from another", 50, 0.001), now: scene.now)
        #expect(try sites.count() == 3)
    }

    /// SITE-01, SITE-07: the nearest sites come nearest first by great-circle distance, at most `limit`,
    /// within the radius asked; far away, across the antimeridian and near a pole they are found too.
    @Test(arguments: StoreBackend.all) func site07NearestByDistance(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let sites = scene.stores.sites
        // A grid around York, 0.01° apart (about 1.1 km north-south, 0.6 km east-west).
        _ = try sites.importSites(now: scene.now) { sink in
            var batch: [NewSite] = []
            for row in 0..<20 {
                for column in 0..<20 {
                    batch.append(
                        Self.site(
                            "G\(row)-\(column)", "Grid \(row) \(column)", 53.9 + Double(row) * 0.01,
                            -1.2 + Double(column) * 0.01))
                }
            }
            try sink.upsert(batch)
        }
        let far = try sites.create(Self.site("FAR", "Lerwick", 60.15, -1.15), now: scene.now)
        let east = try sites.create(Self.site("E", "Taveuni east", -16.8, 179.99), now: scene.now)
        let polar = try sites.create(Self.site("P", "Polar station", 89.99, 120), now: scene.now)

        let found = try sites.nearest(latitude: 53.951, longitude: -1.151, limit: 5, withinMeters: nil)
        #expect(found.count == 5)
        #expect(found.first?.site.reference == "G5-5")
        #expect(found.map(\.distanceMeters) == found.map(\.distanceMeters).sorted())
        let expected = Geo.distance(53.951, -1.151, 53.95, -1.15)
        #expect(abs((found.first?.distanceMeters ?? 0) - expected) < 0.001)
        // Compared with every site's distance: the same five.
        let all = (0..<20).flatMap { row in
            (0..<20).map { column in
                (
                    "G\(row)-\(column)",
                    Geo.distance(53.951, -1.151, 53.9 + Double(row) * 0.01, -1.2 + Double(column) * 0.01)
                )
            }
        }.sorted { $0.1 < $1.1 }
        #expect(found.map(\.site.reference) == all.prefix(5).map(\.0))

        #expect(try sites.nearest(latitude: 53.951, longitude: -1.151, limit: 50, withinMeters: 200).count == 1)
        #expect(try sites.nearest(latitude: 60.2, longitude: -1.2, limit: 1, withinMeters: nil).first?.site == far)
        #expect(try sites.nearest(latitude: 60.2, longitude: -1.2, limit: 1, withinMeters: 1000).isEmpty)
        let across = try sites.nearest(latitude: -16.8, longitude: -179.99, limit: 1, withinMeters: nil)
        #expect(across.first?.site == east && (across.first?.distanceMeters ?? .infinity) < 3000)
        #expect(try sites.nearest(latitude: 89.99, longitude: -60, limit: 1, withinMeters: nil).first?.site == polar)
        #expect(try sites.nearest(latitude: 0, longitude: 0, limit: 500, withinMeters: nil).count == 403)
        #expect(try sites.nearest(latitude: 0, longitude: 0, limit: 0, withinMeters: nil).isEmpty)

        let page = try sites.list(near: SitePoint(latitude: 53.951, longitude: -1.151), limit: 3, offset: 2)
        #expect(page.map(\.site.reference) == all.dropFirst(2).prefix(3).map(\.0))
        #expect(page.allSatisfy { $0.distanceMeters != nil })
        let byName = try sites.list(near: nil, limit: 2, offset: 0)
        #expect(byName.map(\.site.name) == ["Grid 0 0", "Grid 0 1"] && byName.allSatisfy { $0.distanceMeters == nil })
    }

    /// SITE-01: an import adds, then updates by reference what changed and leaves the rest; a failed
    /// import keeps nothing of what it gave; the index moves with a site that moved.
    @Test(arguments: StoreBackend.all) func site01ImportUpsertsByReference(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let sites = scene.stores.sites
        let first = try sites.importSites(now: scene.now) { sink in
            try sink.upsert([Self.site("A", "Abbey", 51, 0), Self.site("B", "Barn", 52, 0)])
            try sink.upsert([Self.site("C", "Chapel", 53, 0)])
        }
        #expect(first == SiteImportCounts(added: 3, updated: 0, unchanged: 0))
        let again = try sites.importSites(now: scene.now + 10) { sink in
            try sink.upsert([Self.site("A", "Abbey", 51, 0), Self.site("B", "Great Barn", 52, 0)])
            try sink.upsert([Self.site("C", "Chapel", 40, 10), Self.site("D", "Dovecote", 54, 0)])
        }
        #expect(again == SiteImportCounts(added: 1, updated: 2, unchanged: 1))
        #expect(try sites.count() == 4)
        #expect(try sites.site(reference: "B")?.name == "Great Barn")
        #expect(try sites.site(reference: "B")?.updatedAt == scene.now + 10)
        #expect(try sites.site(reference: "A")?.updatedAt == scene.now)
        #expect(try sites.nearest(latitude: 40, longitude: 10, limit: 1, withinMeters: 10).first?.site.reference == "C")
        #expect(try sites.nearest(latitude: 53, longitude: 0, limit: 1, withinMeters: 10).isEmpty)

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try sites.importSites(now: scene.now + 20) { sink in
                try sink.upsert([Self.site("E", "Earthwork", 55, 0), Self.site("A", "Renamed", 51, 0)])
                throw Refused()
            }
        }
        #expect(try sites.count() == 4 && sites.site(reference: "E") == nil)
        #expect(try sites.site(reference: "A")?.name == "Abbey")
        #expect(try sites.nearest(latitude: 55, longitude: 0, limit: 1, withinMeters: 10).isEmpty)
    }
}
