import Foundation
import SQLiteStorage
import Testing

/// The server's side of the browser's outbox: a report made on the device arrives by the
/// id the device gave it, and every step sent twice, or twice at once, is kept once and answered the same.
@Suite struct DeviceReportTests {
    static let fields = [
        "name": "Chapel in the valley", "designation": "LPW", "condition": "poor", "occupancy": "part_occupied",
        "priority_category": "C", "owner_type": "religious_organization", "grade": "II*",
    ]

    func open(_ client: SignedInClient, _ id: String) async throws -> CurlResponse {
        try await Self.open(client.http, csrf: client.csrf, id)
    }

    func submit(_ client: SignedInClient, _ id: String, token: String) async throws -> CurlResponse {
        try await Self.submit(client.http, csrf: client.csrf, id, token: token)
    }

    static func open(_ http: HTTPClient, csrf: String, _ id: String) async throws -> CurlResponse {
        try await http.curl(
            "/api/device/reports/\(id)",
            ["-X", "POST", "-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json"])
    }

    static func submit(_ http: HTTPClient, csrf: String, _ id: String, token: String) async throws -> CurlResponse {
        var arguments = [
            "-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json", "--data-urlencode",
            "submit_token=\(token)",
        ]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            arguments += ["--data-urlencode", "\(name)=\(value)"]
        }
        return try await http.curl("/api/device/reports/\(id)/submit", arguments)
    }

    /// Clients of the same session, each on a connection of its own: the same device sending at once.
    static func twins(of client: SignedInClient, _ count: Int) throws -> [HTTPClient] {
        try (0..<count).map { _ in
            let twin = try HTTPClient(baseURL: client.server.baseURL)
            twin.setCookie("har_session", client.http.cookie("har_session") ?? "")
            return twin
        }
    }

    static func newID() -> String { UUID().uuidString.lowercased() }
    static func newToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    @Test("OFF-04: each step sent twice is kept once and answered the same")
    func eachStepSentTwiceIsKeptOnceAndAnsweredTheSame() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        try await client.openDraft()
        let id = Self.newID()
        let opened = try await open(client, id)
        #expect(opened.status == 200)
        #expect(opened.body == #"{"id":"\#(id)","photos":[],"state":"draft"}"#)
        #expect(try await open(client, id).body == opened.body)
        let photo = Self.newID()
        let fields = ["photo_id": photo, "latitude": "51.5", "longitude": "-0.1", "fix_time": "1780000000000"]
        let first = try await client.upload(id, file: try TestImages.jpeg(), fields: fields)
        #expect(first.status == 201)
        let again = try await client.upload(id, file: try TestImages.jpeg(), fields: fields)
        #expect(again.status == 200 && again.body.contains(#""replayed":true"#))
        // The device learns which photos the server has: after a lost answer it sends only the others.
        #expect(try await open(client, id).body.contains(#""photos":["\#(photo)"]"#))
        let token = Self.newToken()
        let submitted = try await submit(client, id, token: token)
        #expect(submitted.status == 200)
        #expect(submitted.body == #"{"id":"\#(id)","photos":[],"state":"submitted"}"#)
        #expect(try await submit(client, id, token: token).body == submitted.body)
        #expect(try await submit(client, id, token: Self.newToken()).body == submitted.body)
        #expect(try await open(client, id).body.contains(#""state":"submitted""#))
        let rows = try queryRows(server, "SELECT state, name, from_device FROM reports WHERE local_id = '\(id)'")
        #expect(rows.count == 1)
        #expect(rows.first?[1].string == "Chapel in the valley" && rows.first?[2].int == 1)
        #expect(rows.first?[0].string != "draft")
        #expect(try scalarValue(server, "SELECT count(*) FROM photos WHERE local_id = '\(photo)'").int == 1)
    }

    @Test("OFF-04: concurrent duplicates are kept once and answered the same")
    func concurrentDuplicatesAreKeptOnceAndAnsweredTheSame() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        try await client.openDraft()
        let id = Self.newID()
        let csrf = client.csrf
        let opens = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for twin in try Self.twins(of: client, 4) { group.addTask { try await Self.open(twin, csrf: csrf, id) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(opens.map(\.body)).count == 1 && opens.allSatisfy { $0.status == 200 })
        let photo = Self.newID()
        let image = try TestImages.jpeg()
        let uploads = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for twin in try Self.twins(of: client, 3) {
                group.addTask {
                    try await twin.curl(
                        "/api/drafts/\(id)/photos",
                        [
                            "-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json", "-F",
                            "photo=@\(image);type=image/jpeg", "-F", "photo_id=\(photo)",
                        ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(uploads.allSatisfy { [200, 201].contains($0.status) }, "\(uploads.map(\.status))")
        #expect(try uploads.allSatisfy { try client.photoID($0) == photo })
        let token = Self.newToken()
        let submits = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for twin in try Self.twins(of: client, 3) {
                group.addTask { try await Self.submit(twin, csrf: csrf, id, token: token) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(submits.allSatisfy { $0.status == 200 }, "\(submits.map(\.status))")
        #expect(Set(submits.map(\.body)).count == 1)
        #expect(try scalarValue(server, "SELECT count(*) FROM reports WHERE local_id = '\(id)'").int == 1)
        #expect(try scalarValue(server, "SELECT count(*) FROM photos WHERE local_id = '\(photo)'").int == 1)
        #expect(
            try scalarValue(server, "SELECT count(*) FROM reports WHERE local_id = '\(id)' AND state != 'draft'").int
                == 1)
    }

    @Test("OFF-02: a report begun online is taken up by its draft's id; the device sends only the rest")
    func aReportBegunOnlineIsTakenUpByItsDraftsID() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let online = Self.newID()
        let sent = try await client.upload(draft, file: try TestImages.jpeg(), fields: ["photo_id": online])
        #expect(sent.status == 201)
        // The network dropped on the creation page: the device's record has the draft's id.
        let opened = try await open(client, draft)
        #expect(opened.status == 200)
        #expect(opened.body == #"{"id":"\#(draft)","photos":["\#(online)"],"state":"draft"}"#)
        let kept = Self.newID()
        #expect(try await client.upload(draft, file: try TestImages.jpeg(), fields: ["photo_id": kept]).status == 201)
        let token = Self.newToken()
        #expect(try await submit(client, draft, token: token).body.contains(#""state":"submitted""#))
        #expect(try await submit(client, draft, token: token).body.contains(#""state":"submitted""#))
        let rows = try queryRows(server, "SELECT state, name, from_device FROM reports WHERE local_id = '\(draft)'")
        #expect(rows.count == 1)
        #expect(rows.first?[0].string != "draft" && rows.first?[2].int == 0, "queued once, still the page's draft")
        let photos = try scalarValue(
            server, "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.local_id = '\(draft)'")
        #expect(photos.int == 2)
    }

    @Test("OFF-03: another user's id is refused; the creation page keeps its own draft")
    func anotherUsersIdIsRefusedAndTheCreationPageKeepsItsOwnDraft() async throws {
        let server = try RunningServer()
        let alice = try await SignedInClient(server)
        let aliceDraft = try await alice.openDraft()
        let id = Self.newID()
        #expect(try await open(alice, id).status == 200)
        #expect(try await alice.openDraft() == aliceDraft, "the page's draft is not the device's")
        let bob = try await SignedInClient(server)
        try await bob.openDraft()
        let taken = try await open(bob, id)
        #expect(taken.status == 409)
        #expect(try await submit(bob, id, token: Self.newToken()).status == 404)
        #expect(try await open(alice, "not-a-uuid").status == 400)
        #expect(try await submit(alice, id, token: Self.newToken()).status == 422, "no photos yet")
        let unsigned = try await alice.post("/api/device/reports/\(Self.newID())", [], csrf: false)
        #expect(unsigned.status == 403)
    }
}
