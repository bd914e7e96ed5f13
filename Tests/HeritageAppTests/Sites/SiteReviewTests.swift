import Foundation
import Testing

@testable import HeritageApp

/// The coordinators' side of the register on the real server (a loopback socket, the SQLite file):
/// a report's site (attach, detach, create, in triage too), a site's page, the register's view and its
/// exports, and hostile input (unknown sites, garbage filters) answered in the user's language.
@Suite(.serialized) struct SiteReviewTests {
    static func site(_ server: RunningServer, _ name: String, reference: String?, at: (Double, Double)) throws
        -> Int64
    {
        try server.application.stores.sites.create(
            NewSite(
                reference: reference, name: name, designation: "LPW", grade: "II*", latitude: at.0, longitude: at.1),
            now: Date().timeIntervalSince1970
        ).id
    }

    static func post(_ client: SignedInClient, _ path: String, _ fields: [(String, String)], from page: String)
        async throws -> CurlResponse
    {
        try await ReviewTests.post(client, path, fields, tokenFrom: page)
    }

    /// SITE-04: the report's page offers the likely sites (near, a name alike marked); attach by the
    /// choice or by a typed reference, detach, create a site from the report; each audited and labelled
    /// in the audit log; an unknown site or action is refused in the user's language and changes nothing.
    @Test func site04ReportPageAttachDetachCreate() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let id = try #require(
            try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Old chapel").first)
        // The report is at 48.86, 2.35.
        let chapel = try Self.site(server, "Old Chapel", reference: "PA-1", at: (48.8601, 2.3501))
        let tower = try Self.site(server, "Tower", reference: "PA-2", at: (48.8605, 2.35))
        _ = try Self.site(server, "Far away", reference: "PA-3", at: (48.95, 2.35))
        let path = "/review/reports/\(id)"
        var page = try await coordinator.get(path)
        #expect(page.status == 200 && page.body.contains("Likely sites of the register"))
        #expect(
            page.body.contains("id=\"site-\(chapel)\"") && page.body.contains("id=\"site-\(tower)\""),
            "\(page.body.components(separatedBy: "id=\"report-site\"").dropFirst().first?.prefix(1500) ?? "")")
        #expect(!page.body.contains("Far away"))
        let chapelAt = try #require(page.body.range(of: "id=\"site-\(chapel)\""))
        let towerAt = try #require(page.body.range(of: "id=\"site-\(tower)\""))
        #expect(chapelAt.lowerBound < towerAt.lowerBound, "the nearer site with the alike name first")
        #expect(page.body.contains("similar name"))

        var answer = try await Self.post(
            coordinator, path + "/site", [("op", "attach"), ("site_id", "\(chapel)")], from: path)
        #expect(answer.status == 303 && answer.headers["location"]?.contains("done=site_attach") == true)
        page = try await coordinator.get(path)
        #expect(page.body.contains("This report belongs to") && page.body.contains("href=\"/review/sites/\(chapel)\""))
        answer = try await Self.post(coordinator, path + "/site", [("op", "detach")], from: path)
        #expect(answer.status == 303)
        answer = try await Self.post(
            coordinator, path + "/site", [("op", "attach"), ("site_other", " PA-2 ")], from: path)
        #expect(answer.status == 303)
        #expect(try server.application.stores.review.row(id: id)?.siteID == tower)
        answer = try await Self.post(coordinator, path + "/site", [("op", "detach")], from: path)
        answer = try await Self.post(coordinator, path + "/site", [("op", "create")], from: path)
        #expect(answer.status == 303)
        let made = try #require(try server.application.stores.review.row(id: id)?.siteID)
        #expect(![chapel, tower].contains(made))
        #expect(try server.application.stores.sites.site(id: made)?.source == .report)

        // Hostile input: an unknown site by id or reference, markup, no action; the report stays on its site.
        for fields in [
            [("op", "attach"), ("site_id", "999999")], [("op", "attach"), ("site_other", "<script>x</script>")],
            [("op", "attach"), ("site_id", "-1")], [("op", "attach")],
        ] {
            let refused = try await Self.post(coordinator, path + "/site", fields, from: path)
            #expect(refused.status == 422, "\(fields)")
            #expect(refused.body.contains("No site of the register has this number or reference."))
            #expect(!refused.body.contains("<script>x"))
        }
        #expect(try await Self.post(coordinator, path + "/site", [("op", "explode")], from: path).status == 422)
        #expect(try server.application.stores.review.row(id: id)?.siteID == made)
        #expect(
            try await Self.post(coordinator, "/review/reports/999999/site", [("op", "detach")], from: path).status
                == 404)
        coordinator.http.setCookie("har_lang", "fr")
        let french = try await Self.post(
            coordinator, path + "/site", [("op", "attach"), ("site_id", "424242")], from: path)
        #expect(french.status == 422 && french.body.contains("Aucun site du registre n’a ce numéro"))
        coordinator.http.setCookie("har_lang", "en")

        // Audited, each labelled, and in the audit log's filter.
        let audit = try await coordinator.get("/review/audit?report=\(id)")
        for label in ["Attached to a site", "Detached from its site", "Site created from a report"] {
            #expect(audit.body.contains(label), "\(label)")
        }
        #expect(try await coordinator.get("/review/audit").body.contains("<option value=\"site_attach\""))
        let rows = try server.application.stores.review.audit(AuditFilter(reportID: id), beforeID: nil, limit: 20)
        #expect(rows.map(\.action) == ["site_create", "site_detach", "site_attach", "site_detach", "site_attach"])
        #expect(rows.allSatisfy { $0.actor == ReviewTests.coordinator })

        // In triage: the same section, its forms carrying the triage's fields, back to triage after.
        let triage = try await coordinator.get(path + "?triage=1")
        #expect(triage.body.contains("id=\"report-site\"") && triage.body.contains("name=\"triage\" value=\"1\""))
        answer = try await Self.post(
            coordinator, path + "/site", [("op", "detach"), ("triage", "1")], from: path + "?triage=1")
        #expect(answer.status == 303 && answer.headers["location"]?.contains("triage=1") == true)
        // A volunteer cannot.
        #expect(try await Self.post(volunteer, path + "/site", [("op", "create")], from: "/reports").status == 403)
        await server.stop()
    }

    /// SITE-05: a site's page: its reports over time, the latest approved report's condition marked
    /// worsened against the approved one before, the latest and the earliest report's photos side by side,
    /// its point and outline, the dashboard filtered to it; an unknown site is a 404 in the user's language.
    @Test func site05SitePageTimelineAndCondition() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let ids = try ReviewTests.insertReports(server, email: volunteer.email, count: 3, prefix: "Mill")
        let other = try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Elsewhere")
        let site = try Self.site(server, "Mill House", reference: "M-1", at: (48.87, 2.35))
        try sqlite(
            server.dataDir,
            """
            UPDATE sites SET outline = '{"type":"Polygon","coordinates":[[[2.349,48.869],[2.351,48.869],[2.351,48.871],[2.349,48.869]]]}' WHERE id = \(site)
            """)
        try sqlite(
            server.dataDir,
            "UPDATE reports SET condition = 'good', occupancy = 'occupied', priority_category = 'E' WHERE id = \(ids[0])"
        )
        try sqlite(
            server.dataDir,
            """
            UPDATE reports SET condition = 'bad', occupancy = 'vacant', priority_category = 'A' WHERE id = \(ids[1])
            """)
        let stores = server.application.stores
        let now = Date().timeIntervalSince1970
        for id in ids {
            #expect(try stores.siteReview.attach(reportID: id, siteID: site, actor: "c@example.org", now: now) == .done)
        }
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        for id in ids.prefix(2) {
            #expect(try stores.review.decide(approve, id: id, actor: "c@example.org", now: now) == .done)
        }
        let page = try await coordinator.get("/review/sites/\(site)")
        #expect(page.status == 200)
        #expect(page.body.contains("<h1>Mill House</h1>") && page.body.contains("M-1"))
        #expect(page.body.contains("id=\"site-condition\">Very bad"))
        #expect(page.body.contains("Worse than the approved report before (Good)"))
        #expect(page.body.contains("id=\"site-timeline\""))
        for id in ids { #expect(page.body.contains("href=\"/review/reports/\(id)\"")) }
        #expect(!page.body.contains("href=\"/review/reports/\(other[0])\""))
        #expect(page.body.contains("Vacant") && page.body.contains(volunteer.email))
        #expect(page.body.contains("Latest") && page.body.contains("Earliest") && page.body.contains("/review/photos/"))
        #expect(page.body.contains("data-outline=\"{&quot;type&quot;:&quot;Polygon&quot;"))
        #expect(page.body.contains("href=\"/review?site&#61;\(site)\""), "the dashboard of its reports")
        // The dashboard filtered to the site: its reports and no other.
        let dashboard = try await coordinator.get("/review?site=\(site)")
        #expect(dashboard.body.contains("Mill 1") && !dashboard.body.contains("Elsewhere 1"))
        #expect(try await coordinator.get("/review?site=banana").body.contains("Elsewhere 1"), "ignored")
        // Unknown sites, in the user's language.
        #expect(try await coordinator.get("/review/sites/999999").status == 404)
        #expect(try await coordinator.get("/review/sites/x%27%3B--").status == 404)
        coordinator.http.setCookie("har_lang", "fr")
        let french = try await coordinator.get("/review/sites/999999")
        #expect(french.status == 404 && french.body.contains("Page introuvable"))
        await server.stop()
    }

    /// SITE-06: the register's table, filtered by the query string (garbage ignored, never a 500), and
    /// its CSV and GeoJSON exports of the same filter, read back; each export audited.
    @Test func site06RegisterFiltersAndExports() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let ids = try ReviewTests.insertReports(server, email: volunteer.email, count: 2, prefix: "Barn")
        let barn = try Self.site(server, "Barn, \"Great\"", reference: "=B-1", at: (48.86, 2.35))
        let quiet = try Self.site(server, "Quiet Church", reference: "Q-1", at: (48.9, 2.4))
        try sqlite(server.dataDir, "UPDATE reports SET condition = 'bad' WHERE id = \(ids[1])")
        let stores = server.application.stores
        let now = Date().timeIntervalSince1970
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        for id in ids {
            _ = try stores.siteReview.attach(reportID: id, siteID: barn, actor: "c@example.org", now: now)
            _ = try stores.review.decide(approve, id: id, actor: "c@example.org", now: now)
        }
        var page = try await coordinator.get("/review/sites")
        #expect(page.status == 200 && page.body.contains("Sites that match: 2"))
        #expect(
            page.body.contains("href=\"/review/sites/\(barn)\"")
                && page.body.contains("href=\"/review/sites/\(quiet)\""))
        #expect(page.body.contains("id=\"sites-map-data\">[{"))
        page = try await coordinator.get("/review/sites?condition=bad")
        #expect(page.body.contains("Sites that match: 1") && !page.body.contains("Quiet Church"))
        #expect(page.body.contains("worsened"))
        page = try await coordinator.get("/review/sites?stale=6")
        #expect(page.body.contains("Quiet Church") && !page.body.contains("href=\"/review/sites/\(barn)\""))
        page = try await coordinator.get("/review/sites?q=quiet&designation=LPW")
        #expect(page.body.contains("Quiet Church") && page.body.contains("Sites that match: 1"))
        for garbage in [
            "condition=%00&priority=Z&designation=<b>&stale=-5&worsened=2026-13-45&after=zzz",
            "stale=99999999999999999999&worsened=x&q=%25%27%22&after=~", "after=a~notanumber&reported=yes",
        ] {
            let answer = try await coordinator.get("/review/sites?" + garbage)
            #expect(answer.status == 200, "\(garbage)")
        }

        // The exports of the same filter, read back.
        let csv = try await coordinator.get("/review/sites/export.csv?condition=bad", ReviewTests.sameOrigin)
        #expect(
            csv.status == 200 && csv.headers["content-type"]?.hasPrefix("text/csv") == true,
            "\(csv.status) \(csv.body.prefix(600))")
        let lines = csv.body.replacing("\u{FEFF}", with: "").split(separator: "\r\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.first?.hasPrefix("id,reference,name,designation,grade,latitude,longitude,current_condition") == true)
        #expect(lines.count > 1 && lines[1].hasPrefix("\(barn),'=B-1,\"Barn, \"\"Great\"\"\",LPW,II*,48.86,2.35,bad,"))
        #expect(lines.count > 1 && lines[1].contains(",worsened,") && lines[1].contains(",2,"))
        let geo = try await coordinator.get("/review/sites/export.geojson", ReviewTests.sameOrigin)
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(geo.body.utf8)) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let first = try #require(features.first?["properties"] as? [String: Any])
        #expect(first["name"] as? String == "Barn, \"Great\"" && first["current_condition"] as? String == "bad")
        #expect(first["report_count"] as? Int == 2 && first["last_report_at"] is String)
        let point = try #require((features.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        #expect(point == [2.35, 48.86])
        let exports = try stores.review.audit(AuditFilter(action: "export_sites_csv"), beforeID: nil, limit: 5)
        #expect(exports.first?.detail == "condition=bad" && exports.first?.actor == ReviewTests.coordinator)
        // A GET from another site is refused (as the dashboard's exports).
        #expect(
            try await coordinator.get("/review/sites/export.csv", ["-H", "Sec-Fetch-Site: cross-site"]).status == 403)
        await server.stop()
    }
}
