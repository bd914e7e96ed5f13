import Foundation
import Testing

@testable import HeritageApp

/// The register's map feed (`/review/sites/map.geojson`) on the real server, on SQLite and on
/// PostgreSQL: every site of the filter in the map's box, not the table's page of 50, through the
/// spatial index; the antimeridian; the cap, said in the answer; a bad box refused in the user's
/// language; coordinators only.
@Suite(.serialized) struct SiteRegisterMapTests {
    /// The area of the grid: 12 × 10 sites 0.01° apart from (48.80, 2.00), every other one LPW.
    static let gridBox = "1.995,48.795,2.115,48.895"
    /// The dense block: 5,100 sites 0.001° apart, 100 a row, filling the box (half a step of margin).
    static let blockBox = "19.9995,9.9995,20.1,10.0505"

    /// The register: the grid, ten LPW sites just east of its box, three on the equator (two either
    /// side of the antimeridian, one far from it), and the dense block; one import, one transaction.
    static func importSites(_ stores: Stores) throws {
        var sites: [NewSite] = []
        for row in 0..<10 {
            for column in 0..<12 {
                sites.append(
                    NewSite(
                        reference: "G-\(row)-\(column)", name: "Grid \(row) \(column)",
                        designation: (row * 12 + column) % 2 == 0 ? "LPW" : "SM", grade: "II",
                        latitude: 48.80 + 0.01 * Double(row), longitude: 2.00 + 0.01 * Double(column)))
            }
        }
        for index in 0..<10 {
            sites.append(
                NewSite(
                    reference: "E-\(index)", name: "East of the grid \(index)", designation: "LPW", grade: "II",
                    latitude: 48.80 + 0.01 * Double(index), longitude: 2.5))
        }
        for (reference, name, longitude) in [("A-1", "East edge", 179.95), ("A-2", "West edge", -179.95)] {
            sites.append(NewSite(reference: reference, name: name, latitude: 0, longitude: longitude))
        }
        sites.append(NewSite(reference: "A-3", name: "Far from the antimeridian", latitude: 0, longitude: 170))
        for index in 0..<5_100 {
            sites.append(
                NewSite(
                    reference: "B-\(index)", name: "Block \(index)", designation: "LB",
                    latitude: 10 + 0.001 * Double(index / 100), longitude: 20 + 0.001 * Double(index % 100)))
        }
        _ = try stores.sites.importSites(now: Date().timeIntervalSince1970) { sink in
            for start in stride(from: 0, to: sites.count, by: 1000) {
                try sink.upsert(Array(sites[start..<min(start + 1000, sites.count)]))
            }
        }
    }

    static func collection(_ client: SignedInClient, _ query: String) async throws -> [String: Any] {
        let answer = try await client.get("/review/sites/map.geojson?" + query)
        #expect(answer.status == 200, "\(query): \(answer.status) \(answer.body.prefix(300))")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
    }

    static func features(_ collection: [String: Any]) throws -> [[String: Any]] {
        try #require(collection["features"] as? [[String: Any]])
    }

    static func ids(_ collection: [String: Any]) throws -> Set<Int64> {
        Set(try features(collection).compactMap { ($0["id"] as? NSNumber)?.int64Value })
    }

    /// SITE-06's map, the same on both engines: the filter and the box, exactly; more than a page.
    static func scenario(_ server: RunningServer, volunteer: SignedInClient, coordinator: SignedInClient)
        async throws
    {
        let stores = server.application.stores
        try importSites(stores)
        func site(_ reference: String) throws -> Int64 {
            // -1, no site's id, when the import lost it: every comparison below then fails.
            try stores.sites.site(reference: reference)?.id ?? -1
        }
        let (bad, good) = (try site("G-0-0"), try site("G-0-1"))
        let (eastEdge, westEdge) = (try site("A-1"), try site("A-2"))
        // One grid site worsened to very bad (an approved report), another (SM) in good condition.
        let user = try #require(try stores.kiosks.userID(email: volunteer.email))
        let now = Date().timeIntervalSince1970
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        for (siteID, condition) in [(bad, "bad"), (good, "good")] {
            let report = try SiteRegisterPostgresTests.report(stores, user: user, condition: condition, now: now)
            let attached = try stores.siteReview.attach(reportID: report, siteID: siteID, actor: "c", now: now)
            #expect(attached == .done)
            #expect(try stores.review.decide(approve, id: report, actor: "c", now: now) == .done)
        }

        // Every LPW site of the grid's box (60: more than the table's page of 50), none outside it.
        var answer = try await collection(coordinator, "bbox=\(gridBox)&designation=LPW")
        var lpw: Set<Int64> = []
        for index in stride(from: 0, to: 120, by: 2) { lpw.insert(try site("G-\(index / 12)-\(index % 12)")) }
        #expect(try ids(answer) == lpw)
        #expect(lpw.count > SiteRegisterScreen.pageSize)
        #expect(answer["truncated"] as? Bool == false && answer["total"] as? Int == 60 && answer["shown"] as? Int == 60)
        #expect((answer["notice"] as? String)?.contains("60 sites that match") == true)
        let table = try await coordinator.get("/review/sites?designation=LPW")
        #expect(table.body.components(separatedBy: "class=\"review-row\"").count - 1 == SiteRegisterScreen.pageSize)
        let worst = try #require(try features(answer).first { ($0["id"] as? NSNumber)?.int64Value == bad })
        let properties = try #require(worst["properties"] as? [String: Any])
        #expect(properties["condition"] as? String == "bad" && properties["label"] as? String == "Very bad")
        #expect(properties["url"] as? String == "/review/sites/\(bad)")
        #expect((worst["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [2.0, 48.8])
        // The filter on the standing, in the box.
        answer = try await collection(coordinator, "bbox=\(gridBox)&condition=bad")
        #expect(try ids(answer) == [bad])
        answer = try await collection(coordinator, "bbox=\(gridBox)&condition=good&designation=LPW")
        #expect(try ids(answer).isEmpty && answer["total"] as? Int == 0)
        answer = try await collection(coordinator, "bbox=\(gridBox)&reported=1&q=grid%200")
        #expect(try ids(answer) == [bad, good])
        // Garbage in the filter is ignored, as on the table.
        answer = try await collection(coordinator, "bbox=\(gridBox)&condition=%00&stale=-5&after=zzz")
        #expect(try ids(answer).count == 120)
        // West above east: the box crosses the antimeridian.
        answer = try await collection(coordinator, "bbox=179.9,-1,-179.9,1")
        #expect(try ids(answer) == [eastEdge, westEdge])

        // More than the cap in the box: a sample spread over the box, said so, with the total.
        answer = try await collection(coordinator, "bbox=\(blockBox)")
        let shown = try features(answer)
        #expect(answer["truncated"] as? Bool == true && answer["total"] as? Int == 5_100)
        #expect(answer["total_at_least"] as? Bool == false && answer["limit"] as? Int == SiteRegisterMap.featureLimit)
        let distinct = try ids(answer).count
        #expect(answer["shown"] as? Int == shown.count && distinct == shown.count)
        #expect(shown.count == SiteRegisterMap.featureLimit, "the cells share the cap: \(shown.count)")
        #expect((answer["notice"] as? String)?.contains("shows 5000 of the 5100 sites that match") == true)
        for feature in shown {
            let at = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            #expect((19.9995...20.1).contains(at[0]) && (9.9995...10.0505).contains(at[1]))
        }

        // A bad box: 400 with the reason in the user's language.
        for refusedBox in [
            "", "bbox=", "bbox=1,2,3", "bbox=1,2,3,4,5", "bbox=a,b,c,d", "bbox=nan,0,1,1", "bbox=0,0,inf,1",
            "bbox=0,-91,1,1", "bbox=0,0,1,90.5", "bbox=-181,0,1,1", "bbox=0,0,180.01,1", "bbox=0,10,1,5",
            "bbox=1,,2,3", "bbox=" + String(repeating: "1,", count: 300) + "1", "bbox=0x,0,1,1",
        ] {
            let refused = try await coordinator.get("/review/sites/map.geojson?" + refusedBox)
            #expect(refused.status == 400, "\(refusedBox.prefix(40))")
            #expect(refused.body.contains("\"error\":\"bad_bbox\"") && refused.body.contains("must be four numbers"))
        }
        coordinator.http.setCookie("har_lang", "fr")
        let french = try await coordinator.get("/review/sites/map.geojson?bbox=0,10,1,5")
        #expect(french.status == 400 && french.body.contains("doit être quatre nombres"))
        coordinator.http.setCookie("har_lang", "en")

        // Coordinators only: a volunteer is refused, a stranger sent to sign in.
        #expect(try await volunteer.get("/review/sites/map.geojson?bbox=\(gridBox)").status == 403)
        let anonymous = try await curl(server.baseURL + "/review/sites/map.geojson?bbox=\(gridBox)")
        #expect(anonymous.status == 303 && anonymous.headers["location"]?.hasPrefix("/signin") == true)
    }

    @Test func site06MapShowsEverySiteOfTheFilterInTheBox() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        try await Self.scenario(server, volunteer: volunteer, coordinator: coordinator)
        await server.stop()
    }

    @Test(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
    func site06MapShowsEverySiteOfTheFilterInTheBoxOnPostgreSQL() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, verified: ReviewTests.coordinator)
        let database = try PostgresCluster.shared().makeDatabase()
        let server = try ReviewTests.server(PostgresServeTests.environment(database: database, platform: platform))
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        #expect(!FileManager.default.fileExists(atPath: server.dataDir + "/har.sqlite"), "no SQLite file")
        try await Self.scenario(server, volunteer: volunteer, coordinator: coordinator)
        await server.stop()
    }
}
