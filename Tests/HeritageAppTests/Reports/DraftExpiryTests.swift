import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

/// A draft abandoned past its retention (7 days by default) is removed with its photos; its user, coming
/// back to it from a page or a tab left open, is told so in their language. Another user's draft id
/// reads exactly like an id that never existed. The rows are aged in SQLite: no test waits a retention.
@Suite(.serialized) struct DraftExpiryTests {
    static let expiredWords = "This draft report was not used for 7 days and has been removed. Its photos were deleted."

    /// Moves a draft's last use back by `days`.
    func age(_ server: RunningServer, _ draft: String, days: Double = 8) throws {
        try sqlite(
            server.dataDir, "UPDATE reports SET updated_at = updated_at - \(days * 86_400) WHERE local_id = '\(draft)'")
    }

    func json(_ response: CurlResponse) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        return (object ?? [:]).compactMapValues { $0 as? String }
    }

    @Test func anExpiredDraftIsExplainedToFetchCallsAndPages() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let photo = try await client.photoID(
            client.upload(draft, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0"]))
        // The submission form, opened before the draft expired.
        let submitPage = try await client.get("/reports/new/submit").body
        let token = try #require(submitPage.firstMatch(#"name="submit_token" value="([0-9a-f]{64})""#))
        try age(server, draft)

        // A tab left open uploads to it: the draft goes now (not revived), and the page's fetch is told why.
        let upload = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(upload.status == 410)
        #expect(try json(upload) == ["error": "draft_expired", "message": Self.expiredWords])
        #expect(try scalarValue(server, "SELECT count(*) FROM reports WHERE local_id = '\(draft)'").int == 0)
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 0)
        #expect(!files(in: server, "photos").contains(photo))
        #expect(try scalarValue(server, "SELECT photo_count FROM expired_drafts WHERE local_id = '\(draft)'").int == 1)

        let remove = try await client.post(
            "/api/drafts/\(draft)/photos/\(photo)", ["-X", "DELETE", "-H", "Accept: application/json"])
        #expect(remove.status == 410)
        #expect(try json(remove)["message"] == Self.expiredWords)
        let suggestions = try await client.get("/api/drafts/\(draft)/suggestions", ["-H", "Accept: application/json"])
        #expect(suggestions.status == 410)
        #expect(try json(suggestions)["error"] == "draft_expired")

        // Without JavaScript: the X's form and the submission form land on the creation page, which says it.
        let formRemove = try await client.post(
            "/api/drafts/\(draft)/photos/\(photo)/delete",
            ["--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "back=/reports/new/submit"], csrf: false)
        #expect(formRemove.status == 303)
        #expect(formRemove.headers["location"] == "/reports/new?expired=\(draft)")
        var submit = [
            "--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "submit_token=\(token)",
            "--data-urlencode", "draft=\(draft)",
        ]
        for (name, value) in SubmitTests.good.sorted(by: { $0.key < $1.key }) {
            submit += ["--data-urlencode", "\(name)=\(value)"]
        }
        let submitted = try await client.post("/reports/new/submit", submit, csrf: false)
        #expect(submitted.status == 303)
        #expect(submitted.headers["location"] == "/reports/new?expired=\(draft)")
        #expect(try scalarValue(server, "SELECT count(*) FROM reports WHERE state != 'draft'").int == 0)

        // Coming back to the creation page: a new draft, and the message, once.
        let page = try await client.get("/reports/new")
        #expect(page.status == 200)
        #expect(page.body.contains(Self.expiredWords))
        #expect(page.body.firstMatch(#"data-draft="([0-9a-f-]{36})""#) != draft)
        #expect(!(try await client.get("/reports/new").body.contains(Self.expiredWords)))
        // The link a refused request sent the user to still says it, in the user's language.
        let linked = try await client.get("/reports/new?expired=\(draft)")
        #expect(linked.body.contains(Self.expiredWords))
        let french = try await client.get("/reports/new/submit?expired=\(draft)", ["-H", "Accept-Language: fr"])
        #expect(
            french.body.contains(
                "Ce brouillon de signalement n’a pas été utilisé pendant 7 jours et a été supprimé. Ses photos ont été effacées."
            ))
    }

    @Test func anotherUsersDraftReadsLikeAnUnknownIdEvenOnceExpired() async throws {
        let server = try RunningServer()
        let owner = try await SignedInClient(server)
        let stranger = try await SignedInClient(server)
        let draft = try await owner.openDraft()
        _ = try await owner.upload(draft, file: try TestImages.jpeg())
        _ = try await stranger.openDraft()
        let unknown = UUID().uuidString.lowercased()

        func answers(_ id: String) async throws -> [String] {
            let upload = try await stranger.upload(id, file: try TestImages.jpeg())
            let suggestions = try await stranger.get(
                "/api/drafts/\(id)/suggestions", ["-H", "Accept: application/json"])
            let page = try await stranger.get("/reports/new?expired=\(id)")
            let notice = page.body.contains("draft-expired") ? "notice" : "no notice"
            return ["\(upload.status) \(upload.body)", "\(suggestions.status) \(suggestions.body)", notice]
        }
        let forUnknown = try await answers(unknown)
        #expect(forUnknown.first?.hasPrefix("404 ") == true)
        #expect(try await answers(draft) == forUnknown)
        // Expired by the sweep that anyone's new draft starts.
        try age(server, draft)
        _ = try await SignedInClient(server).openDraft()
        #expect(try scalarValue(server, "SELECT count(*) FROM expired_drafts WHERE local_id = '\(draft)'").int == 1)
        #expect(try await answers(draft) == forUnknown)
        // …while its owner is told.
        let mine = try await owner.upload(draft, file: try TestImages.jpeg())
        #expect(mine.status == 410)
        #expect(try json(mine)["message"] == Self.expiredWords)
    }

    @Test func anEmptyDraftGoesWithoutAWordOnTheNextPage() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        try age(server, draft)
        let page = try await client.get("/reports/new")
        #expect(!page.body.contains("draft-expired"))
        #expect(page.body.firstMatch(#"data-draft="([0-9a-f-]{36})""#) != draft)
        // A tab still open on it is told, without the words about photos.
        let upload = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(upload.status == 410)
        #expect(try json(upload)["message"] == "This draft report was not used for 7 days and has been removed.")
    }

    @Test func theRetentionIsSaidInItsLargestWholeUnit() throws {
        let catalog = try MessageCatalog(directory: TestPaths.packageRoot + "/Templates")
        let english = catalog.messages(for: .en)
        let french = catalog.messages(for: .fr)
        #expect(Drafts.duration(604_800, english) == "7 days")
        #expect(Drafts.duration(86_400, english) == "1 day")
        #expect(Drafts.duration(90_000, english) == "1 day")
        #expect(Drafts.duration(7_200, english) == "2 hours")
        #expect(Drafts.duration(60, english) == "1 minute")
        #expect(Drafts.duration(45, english) == "45 seconds")
        #expect(Drafts.duration(1, french) == "1 seconde")
        #expect(Drafts.duration(172_800, french) == "2 jours")
    }
}
