import Foundation
import Testing

@testable import HeritageApp

/// A kiosk belongs to a site of the register (SITE-03): named by reference or number on
/// `/review/kiosks` or to `har kiosk create --site`, or a new site entered in the register; every report
/// the kiosk files belongs to it, whatever the visitor typed.
@Suite(.serialized) struct KioskSiteTests {
    @Test func site03KioskReportsBelongToTheKiosksSite() async throws {
        let server = try KioskTests.server()
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let stores = server.application.stores
        let abbey = try stores.sites.create(
            NewSite(reference: "AB-9", name: "Abbey Ruins", designation: "SM", latitude: 51.5, longitude: -0.12),
            now: Date().timeIntervalSince1970
        ).id
        // Named by its reference on /review/kiosks: the kiosk takes the site's name and point.
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator, site: "AB-9", location: ("", ""))
        #expect(try await tablet.curl("/kiosk", []).body.contains("Abbey Ruins"))
        let filed = try await KioskTests.fileVisit(tablet, name: "The visitor's own words")
        #expect(filed.status == 200, "the receipt: \(filed.status) \(filed.body.prefix(300))")
        let row = try #require(try queryRows(server, "SELECT name, site_id FROM reports WHERE origin = 'kiosk'").first)
        #expect(row[0].string == "The visitor's own words" && row[1].int == abbey)
        // The site's standing, kept on its row in the report's transaction (SITE-05): one report, waiting
        // for a coordinator, so no condition yet.
        let standing = try #require(
            try queryRows(server, "SELECT report_count, last_at, cur_condition FROM sites WHERE id = \(abbey)").first)
        #expect(standing[0].int == 1 && standing[1].double != nil && standing[2].isNull, "\(standing)")
        // The site's page shows the kiosk's report.
        let page = try await coordinator.get("/review/sites/\(abbey)")
        #expect(page.body.contains("The visitor&#39;s own words"))

        // A new site's name with a position: it enters the register (source kiosk).
        _ = try await KioskTests.enrolledTablet(server, coordinator, site: "Hilltop Chapel", location: ("51.6", "-0.1"))
        let made = try #require(
            try stores.sites.nearest(latitude: 51.6, longitude: -0.1, limit: 1, withinMeters: 10).first)
        #expect(made.site.name == "Hilltop Chapel" && made.site.source == .kiosk)

        // `har kiosk create --site #ID` on the data folder: linked to that site.
        let environment = ["HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        let created = try await runProgram(
            TestPaths.harExecutable,
            ["kiosk", "create", "--site", "#\(abbey)", "--base-url", server.baseURL], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("site \(abbey) of the register: Abbey Ruins"))
        #expect(created.stdout.contains("created for Abbey Ruins"))
        let kiosk = try #require(Int64(try sqlite(server.dataDir, "SELECT max(id) FROM kiosks")))
        #expect(try stores.siteReview.kioskSite(kiosk) == abbey)
        // A name that is no site and no position: a kiosk of no site, said so.
        let loose = try await runProgram(
            TestPaths.harExecutable, ["kiosk", "create", "--site", "Nowhere in particular"], environment: environment)
        #expect(loose.status == 0 && loose.stdout.contains("not a site of the register"))

        // `/review/kiosks` names each kiosk's site of the register, linked to the site's page, with its
        // reference; a kiosk of no site says so.
        let kiosksPage = try await coordinator.get("/review/kiosks").body
        #expect(kiosksPage.contains("<a href=\"/review/sites/\(abbey)\">Abbey Ruins</a>"), "\(kiosksPage)")
        #expect(kiosksPage.contains("(AB-9)"))
        #expect(kiosksPage.contains("<a href=\"/review/sites/\(made.site.id)\">Hilltop Chapel</a>"))
        #expect(
            kiosksPage.contains(
                "Nowhere in particular <span class=\"kiosk-site-reference\">(not a site of the register)"))
        // `har kiosk list` too, in its last column: `#ID REFERENCE NAME`, or `-`.
        let list = try await runProgram(TestPaths.harExecutable, ["kiosk", "list"], environment: environment)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix("\tsite of the register") == true, "\(list.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(kiosk)\t") && $0.hasSuffix("\t#\(abbey) AB-9 Abbey Ruins") })
        #expect(
            lines.contains { $0.contains("\tHilltop Chapel\t") && $0.hasSuffix("\t#\(made.site.id) Hilltop Chapel") })
        #expect(lines.contains { $0.contains("\tNowhere in particular\t") && $0.hasSuffix("\t-") })
        await server.stop()
    }
}
