import Foundation
import Testing

@testable import HeritageApp

/// The register's view on the real server started on PostgreSQL (`database_url`), as
/// `SiteReviewTests` shows it on SQLite: the page's filters and the exports read back, over HTTP.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct SiteRegisterPostgresTests {
    /// A queued report of the user's, made as the submission page makes one, with `condition`.
    static func report(_ stores: Stores, user: Int64, condition: String, now: Double) throws -> Int64 {
        let (draft, _) = try stores.drafts.openDraft(userID: user, now: now, freshSince: 0)
        _ = try stores.drafts.addPhoto(
            StoreScene.photo(at: PhotoFix(latitude: 48.86, longitude: 2.35, accuracy: 10)), to: draft, now: now)
        var fields = StoreScene.fields
        fields.name = "Barn"
        fields.condition = condition
        #expect(
            try stores.drafts.submit(
                draftLocalID: draft.localID, userID: user, fields: fields, token: UUID().uuidString, now: now)
                == .queued)
        return try #require(try stores.outbox.reportID(localID: draft.localID))
    }

    /// SITE-06 on PostgreSQL: condition, not reported for N months, text with designation, garbage
    /// ignored; the CSV and GeoJSON exports of a filter read back.
    @Test func site06RegisterFiltersAndExportsOnPostgreSQL() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, verified: ReviewTests.coordinator)
        let database = try PostgresCluster.shared().makeDatabase()
        let server = try ReviewTests.server(PostgresServeTests.environment(database: database, platform: platform))
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let stores = server.application.stores
        #expect(!FileManager.default.fileExists(atPath: server.dataDir + "/har.sqlite"), "no SQLite file")
        let user = try #require(try stores.kiosks.userID(email: volunteer.email))
        let barn = try SiteReviewTests.site(server, "Barn, \"Great\"", reference: "=B-1", at: (48.86, 2.35))
        let quiet = try SiteReviewTests.site(server, "Quiet Church", reference: "Q-1", at: (48.9, 2.4))
        let now = Date().timeIntervalSince1970
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        for (offset, condition) in ["good", "bad"].enumerated() {
            let id = try Self.report(stores, user: user, condition: condition, now: now - 10 + Double(offset))
            _ = try stores.siteReview.attach(reportID: id, siteID: barn, actor: "c@example.org", now: now)
            _ = try stores.review.decide(approve, id: id, actor: "c@example.org", now: now)
        }
        var page = try await coordinator.get("/review/sites")
        #expect(page.status == 200 && page.body.contains("Sites that match: 2"))
        page = try await coordinator.get("/review/sites?condition=bad")
        #expect(page.body.contains("Sites that match: 1") && !page.body.contains("Quiet Church"))
        #expect(page.body.contains("worsened"))
        page = try await coordinator.get("/review/sites?stale=6")
        #expect(page.body.contains("Quiet Church") && !page.body.contains("href=\"/review/sites/\(barn)\""))
        page = try await coordinator.get("/review/sites?q=quiet&designation=LPW")
        #expect(page.body.contains("href=\"/review/sites/\(quiet)\"") && page.body.contains("Sites that match: 1"))
        page = try await coordinator.get("/review/sites?q=%25%27%22&stale=-5&after=a~notanumber")
        #expect(page.status == 200 && page.body.contains("Sites that match: 0"))

        let csv = try await coordinator.get("/review/sites/export.csv?condition=bad", ReviewTests.sameOrigin)
        #expect(csv.status == 200, "\(csv.status) \(csv.body.prefix(600))")
        let lines = csv.body.replacing("\u{FEFF}", with: "").split(separator: "\r\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.count > 1 && lines[1].hasPrefix("\(barn),'=B-1,\"Barn, \"\"Great\"\"\",LPW,II*,48.86,2.35,bad,"))
        #expect(lines.count > 1 && lines[1].contains(",worsened,") && lines[1].contains(",2,"))
        let geo = try await coordinator.get("/review/sites/export.geojson", ReviewTests.sameOrigin)
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(geo.body.utf8)) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let first = try #require(features.first?["properties"] as? [String: Any])
        #expect(first["current_condition"] as? String == "bad" && first["report_count"] as? Int == 2)
        await server.stop()
    }
}
