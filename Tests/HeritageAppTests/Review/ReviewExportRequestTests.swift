import Foundation
import Testing

@testable import HeritageApp

/// Exports write a file and an audit row in the coordinator's name: the dashboard asks for them by POST
/// with the CSRF token, and a GET is made only when the browser vouches that it comes from this origin
/// or from the user (`Sec-Fetch-Site: same-origin | none`). The dashboard's map feed is a view, not an
/// export: no reporter's e-mail in it.
@Suite(.serialized) struct ReviewExportRequestTests {
    static let exports = ["/review/export.csv", "/review/export.geojson", "/review/export.zip", "/review/audit.csv"]

    @Test func exportsNeedTheTokenOrABrowserThatVouchesForTheRequest() async throws {
        let server = try ReviewTests.server()
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let audited = { try sqlite(server.dataDir, "SELECT COUNT(*) FROM review_audit WHERE action LIKE 'export%'") }
        #expect(try audited() == "0")
        for path in Self.exports {
            // No Fetch Metadata (an old browser, or a request a page on another sibling site made).
            let bare = try await coordinator.get(path)
            #expect(bare.status == 403, "\(path) without Sec-Fetch-Site: \(bare.status)")
            let sibling = try await coordinator.get(path, ["-H", "Sec-Fetch-Site: same-site"])
            #expect(sibling.status == 403, "\(path) same-site: \(sibling.status)")
            // A POST without the token is refused as any change is.
            let forged = try await coordinator.http.curl(path, ["-X", "POST", "--data-urlencode", "_csrf=00"])
            #expect(forged.status == 403, "\(path) forged POST: \(forged.status)")
        }
        #expect(try audited() == "0", "nothing written in the coordinator's name")

        // The dashboard's own buttons: POST with the page's token, the filter in the query string.
        let page = try await coordinator.get("/review?q=weir")
        #expect(page.body.contains(#"action="/review/export.csv?q&#61;weir""#))
        #expect(!page.body.contains(#"href="/review/export.csv"#), "no export link a GET could follow")
        for path in Self.exports {
            let token = try SignedInClient.csrf(in: try await coordinator.get("/review").body)
            let made = try await coordinator.http.curl(path + "?q=weir", ["--data-urlencode", "_csrf=\(token)"])
            #expect(made.status == 200, "\(path) by POST: \(made.status) \(made.body.prefix(200))")
            #expect(try await coordinator.get(path, ["-H", "Sec-Fetch-Site: none"]).status == 200, "\(path) typed")
        }
        #expect(try audited() == "8")
        await server.stop()
    }

    @Test func theMapFeedCarriesNoReporterEmail() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        try ReviewTests.insertReports(server, email: volunteer.email, count: 2, prefix: "Mapped mill")
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let map = try await coordinator.get("/review/map.geojson?q=mapped")
        #expect(map.status == 200)
        #expect(map.body.contains("Mapped mill"))
        #expect(!map.body.contains(volunteer.email) && !map.body.contains("\"reporter\""), "\(map.body.prefix(300))")
        // The audited export still has it.
        let export = try await coordinator.get("/review/export.geojson?q=mapped", ReviewTests.sameOrigin)
        #expect(export.body.contains(volunteer.email))
        await server.stop()
    }
}
