import Foundation
import Testing

@testable import HeritageApp

/// LST-02 for a volunteer with many reports: the page shows the newest 50 and a "Show more" link that
/// works without JavaScript; the JSON the page's script reads follows the same `show`; hostile `show`
/// values get one page, never an error; the shared delete form of the rows still deletes.
@Suite struct ReportListPagingTests {
    /// Held reports: the upload worker leaves them alone, so only the list changes them.
    func seed(_ server: RunningServer, count: Int) throws {
        try sqlite(
            server.dataDir,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO reports (user_id, local_id, state, name, creation_time, updated_at)
            SELECT (SELECT id FROM users), 'local-' || printf('%03d', i), 'held', 'Place ' || printf('%03d', i),
                   1767225600 + i * 60, 1767225600 FROM n
            """)
    }

    func rowNames(_ body: String) -> [String] {
        body.matches(of: /<p class="report-name">([^<]*)<\/p>/).map { String($0.1) }
    }

    @Test func theListShowsTheNewestFiftyAndShowMoreGrowsItWithoutJavaScript() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        try seed(server, count: 120)

        let first = try await client.get("/reports")
        #expect(first.status == 200)
        let names = rowNames(first.body)
        #expect(names.count == 50)
        #expect(names.first == "Place 120" && names.last == "Place 071", "newest first")
        #expect(first.body.contains("Showing the newest 50 of 120 reports."))
        #expect(first.body.contains(#"href="/reports?show=100">Show 50 more</a>"#))

        let second = try await client.get("/reports?show=100")
        #expect(rowNames(second.body).count == 100)
        #expect(second.body.contains(#"href="/reports?show=120">Show 20 more</a>"#))

        let all = try await client.get("/reports?show=120")
        #expect(rowNames(all.body).count == 120)
        #expect(rowNames(all.body).last == "Place 001")
        #expect(all.body.contains(#"<p class="show-more" id="show-more" hidden></p>"#), "nothing more to show")

        // Hostile or silly values: one page, never an error.
        for value in ["-5", "0", "abc", "99999999999999999999", "1e9", "%00", "50%20OR%201=1", ""] {
            let page = try await client.get("/reports?show=\(value)")
            #expect(page.status == 200, "show=\(value)")
            #expect(rowNames(page.body).count == 50, "show=\(value)")
        }
        // More than there are: all of them.
        #expect(rowNames(try await client.get("/reports?show=4000").body).count == 120)

        // The page's script asks the JSON endpoint for as many rows as it shows.
        let json = try await client.get("/api/reports?show=100", ["-H", "Accept: application/json"])
        #expect(json.status == 200)
        let answer = try JSONSerialization.jsonObject(with: Data(json.body.utf8)) as? [String: Any]
        #expect((answer?["rows"] as? [Any])?.count == 100)
        #expect(answer?["shown"] as? Int == 100)
        #expect(answer?["total"] as? Int == 120)
        #expect((answer?["moreHTML"] as? String)?.contains("show=120") == true)
        #expect(rowNames(answer?["html"] as? String ?? "").count == 100)
    }

    @Test func everyRowsDeleteButtonPostsThePagesOneFormWithItsToken() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        try seed(server, count: 3)
        let page = try await client.get("/reports").body
        // One CSRF field for the page, not one per row; each button names the form and its own action.
        let token = try #require(
            page.firstMatch(
                of: /<form id="delete-form" method="post" hidden><input type="hidden" name="_csrf" value="([0-9a-f]+)">/
            )
        ).1
        let rows = try #require(page.firstMatch(of: /<ul class="report-list"[\s\S]*?<\/ul>/)).0
        #expect(!rows.contains("_csrf"))
        #expect(page.contains(#"form="delete-form" formaction="/reports/local-002/delete""#))
        // What a browser without JavaScript sends when that button is pressed.
        let deleted = try await client.post("/reports/local-002/delete", [("_csrf", String(token))])
        #expect(deleted.status == 303)
        #expect(deleted.headers["location"] == "/reports?deleted=1")
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = 'local-002'") == "cancelled")
        #expect(rowNames(try await client.get("/reports").body) == ["Place 003", "Place 001"])
        // The form says how many rows the page showed: the list comes back as long (without JavaScript).
        let longer = try await client.post("/reports/local-003/delete", [("_csrf", String(token)), ("show", "100")])
        #expect(longer.headers["location"] == "/reports?deleted=1&show=100")
        let silly = try await client.post("/reports/local-001/delete", [("_csrf", String(token)), ("show", "x")])
        #expect(silly.headers["location"] == "/reports?deleted=1")
    }
}
