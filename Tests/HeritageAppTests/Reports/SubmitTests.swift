import Foundation
import SQLiteStorage
import Testing

/// Submission on the server (SUB-02..06): validation that keeps every value and photo, one report per
/// token, the CSRF check, suggestions within 250 m.
@Suite(.serialized) struct SubmitTests {
    static let good = [
        "name": "St Mary's Church", "designation": "LPW", "condition": "poor", "occupancy": "part_occupied",
        "priority_category": "C", "owner_type": "religious_organization", "grade": "II*",
    ]

    func submitPage(_ client: SignedInClient) async throws -> (token: String, draft: String, body: String) {
        let page = try await client.get("/reports/new/submit")
        let token = try #require(page.body.firstMatch(#"name="submit_token" value="([0-9a-f]{64})""#))
        let draft = try #require(page.body.firstMatch(#"name="draft" value="([0-9a-f-]{36})""#))
        return (token, draft, page.body)
    }

    func post(_ client: SignedInClient, _ fields: [String: String], token: String, draft: String) async throws
        -> CurlResponse
    {
        var arguments = [
            "--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "submit_token=\(token)",
            "--data-urlencode", "draft=\(draft)",
        ]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            arguments += ["--data-urlencode", "\(name)=\(value)"]
        }
        return try await client.post("/reports/new/submit", arguments, csrf: false)
    }

    @Test func eachBadInputReshowsTheFormKeepingValuesAndPhotos() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draftID = try await client.openDraft()
        let page = try await submitPage(client)
        // Empty draft first.
        let empty = try await post(client, Self.good, token: page.token, draft: page.draft)
        #expect(empty.status == 422)
        #expect(empty.body.contains("Add at least one photo"))
        #expect(
            empty.body.contains("value=\"St Mary&#39;s Church\"")
                || empty.body.contains("value=\"St Mary&#x27;s Church\""))
        let photo = try await client.photoID(
            client.upload(draftID, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0"]))
        let cases: [(String, String, String)] = [
            ("name", "", "cannot be left empty"),
            ("name", String(repeating: "a", count: 201), "at most 200 characters"),
            ("name", "Bad\u{7}name", "not allowed"),
            ("designation", "XX", "not one of the list"),
            ("condition", "ruined", "not one of the list"),
            ("occupancy", "", "Choose a value"),
            ("priority_category", "G", "not one of the list"),
            ("owner_type", "<script>", "not one of the list"),
            ("grade", "III", "not one of the list"),
        ]
        for (field, value, message) in cases {
            var fields = Self.good
            fields[field] = value
            let answer = try await post(client, fields, token: page.token, draft: page.draft)
            #expect(answer.status == 422, "\(field)=\(value)")
            #expect(answer.body.contains(message), "\(field): \(message)")
            #expect(answer.body.contains("/photos/\(photo)/thumb"))
            #expect(answer.body.contains(#"<option value="part_occupied" selected>"#) || field == "occupancy")
            #expect(!answer.body.contains("<script>\""))
        }
        #expect(try scalarValue(server, "SELECT state FROM reports").string == "draft")
    }

    @Test func doubleSubmitQueuesOneReportWithTheBestFix() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draftID = try await client.openDraft()
        _ = try await client.upload(
            draftID, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0", "accuracy": "15"])
        _ = try await client.upload(
            draftID, file: try TestImages.jpeg(),
            fields: ["latitude": "51.001", "longitude": "0.001", "accuracy": "4", "altitude": "12"])
        let page = try await submitPage(client)
        #expect(page.body.contains("Listed place of worship"))
        #expect(page.body.contains("id=\"camera-tile\""))
        let first = try await post(client, Self.good, token: page.token, draft: page.draft)
        #expect(first.status == 303)
        #expect(first.headers["location"] == "/reports")
        let replay = try await post(client, Self.good, token: page.token, draft: page.draft)
        #expect(replay.status == 303)
        #expect(replay.headers["location"] == "/reports")
        let rows = try queryRows(
            server,
            "SELECT state, name, designation, grade, latitude, accuracy, altitude, submitted_at, submit_token FROM reports"
        )
        #expect(rows.count == 1)
        // Queued, or already on its way: the upload worker is woken by the submission.
        #expect(["queued", "creating", "created", "uploading", "stored"].contains(rows.first?[0].string ?? ""))
        #expect(rows.first?[1].string == "St Mary's Church")
        #expect(rows.first?[2].string == "LPW")
        #expect(rows.first?[3].string == "II*")
        #expect(rows.first?[4].double == 51.001)
        #expect(rows.first?[5].double == 4)
        #expect(rows.first?[6].double == 12)
        #expect(rows.first?[7].double != nil)
        #expect(rows.first?[8].string == page.token)
        // The next visit to creation starts a new draft.
        #expect(try await client.openDraft() != draftID)
    }

    @Test func submitWithoutCsrfIsRefused() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draftID = try await client.openDraft()
        _ = try await client.upload(draftID, file: try TestImages.jpeg())
        let page = try await submitPage(client)
        var arguments = ["--data-urlencode", "submit_token=\(page.token)", "--data-urlencode", "draft=\(page.draft)"]
        for (name, value) in Self.good { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        let answer = try await client.post("/reports/new/submit", arguments, csrf: false)
        #expect(answer.status == 403)
        #expect(try scalarValue(server, "SELECT state FROM reports").string == "draft")
    }

    @Test func suggestionsAreNamesOfReportsWithin250Metres() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        // Two queued reports: one 100 m away, one 2 km away.
        for (name, latitude) in [("Old Mill", "51.0009"), ("Far Tower", "51.018")] {
            let draft = try await client.openDraft()
            _ = try await client.upload(
                draft, file: try TestImages.jpeg(), fields: ["latitude": latitude, "longitude": "0"])
            let page = try await submitPage(client)
            var fields = Self.good
            fields["name"] = name
            #expect(try await post(client, fields, token: page.token, draft: page.draft).status == 303)
        }
        let draft = try await client.openDraft()
        _ = try await client.upload(draft, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0"])
        let answer = try await client.get("/api/drafts/\(draft)/suggestions")
        #expect(answer.body == #"{"names":["Old Mill"]}"#)
        #expect(try await submitPage(client).body.contains(#"<option value="Old Mill">"#))
    }
}

extension String {
    /// The first capture group of a regular expression, or nil.
    func firstMatch(_ pattern: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: self, range: NSRange(startIndex..., in: self)), match.numberOfRanges > 1,
            let range = Range(match.range(at: 1), in: self)
        else { return nil }
        return String(self[range])
    }
}
