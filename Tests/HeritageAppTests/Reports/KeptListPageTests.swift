import Foundation
import HTTPServer
import Synchronization
import Testing

@testable import HeritageApp

/// The list's rendered answers kept by their ETag (`KeptPages`). A kept page is served again
/// for its tag only, with a CSRF token masked afresh each time; a change to what the list shows (the
/// worker's, a reviewer's) is another tag, so the next GET renders it; nobody else, no other language,
/// query or settings ever gets it; the store stays within its bounds.
@Suite(.serialized) struct KeptListPageTests {
    /// Every masked CSRF token of a page (form fields and the meta element), in order.
    static func tokens(_ html: String) -> [String] {
        let pattern = #/(?:name="_csrf" value="|name="har-csrf" content=")([0-9a-f]+)"/#
        return html.matches(of: pattern).map { String($0.output.1) }
    }

    /// The page with its tokens replaced by one word, for comparing two responses.
    static func withoutTokens(_ html: String) -> String {
        var html = html
        for token in Set(tokens(html)) { html = html.replacingOccurrences(of: token, with: "TOKEN") }
        return html
    }

    /// The list shows a change made without moving the list version only when it renders: with the
    /// trigger gone, a renamed report tells a kept page from a rendered one.
    static func renameBehindTheVersionsBack(_ server: RunningServer, _ localID: String, to name: String) throws {
        try sqlite(server.dataDir, "DROP TRIGGER IF EXISTS reports_list_update")
        try sqlite(server.dataDir, "UPDATE reports SET name = '\(name)' WHERE local_id = '\(localID)'")
    }

    @Test func aKeptPageIsServedForItsTagWithAFreshTokenEachTime() async throws {
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false"])
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email)
        for index in 0..<30 { _ = try seedReport(server, email: email, state: "stored", name: "Chapel \(index)") }
        let first = try seedReport(server, email: email, state: "queued", name: "Queued mill")
        let second = try seedReport(server, email: email, state: "queued", name: "Queued barn")

        let one = try await client.get("/reports")
        let two = try await client.get("/reports")
        #expect(one.status == 200 && two.status == 200)
        #expect(one.headers["etag"] == two.headers["etag"])
        #expect(one.headers["cache-control"] == "private, no-cache")
        #expect(one.headers["content-type"] == "text/html; charset=utf-8")
        // Every place of the token has one, the same within a page, another in each response.
        let oneTokens = Self.tokens(one.body)
        let twoTokens = Self.tokens(two.body)
        #expect(oneTokens.count >= 3 && oneTokens.count == twoTokens.count)
        #expect(Set(oneTokens).count == 1 && Set(twoTokens).count == 1)
        #expect(oneTokens[0] != twoTokens[0])
        #expect(!one.body.contains(ReportListScreen.csrfPlace))
        #expect(Self.withoutTokens(one.body) == Self.withoutTokens(two.body))

        // Served without rendering: a change that does not move the version (the trigger dropped) is not
        // seen while the tag holds; once the version moves, it is.
        try Self.renameBehindTheVersionsBack(server, first, to: "Renamed mill")
        let kept = try await client.get("/reports")
        #expect(kept.body.contains("Queued mill") && !kept.body.contains("Renamed mill"))
        #expect(kept.headers["etag"] == one.headers["etag"])
        try sqlite(server.dataDir, "UPDATE list_versions SET version = version + 1")
        let moved = try await client.get("/reports")
        #expect(moved.body.contains("Renamed mill"))
        #expect(moved.headers["etag"] != one.headers["etag"])

        // Both tokens, from two responses of one kept page, are accepted by a delete.
        let deleted = try await client.post("/reports/\(first)/delete", [("_csrf", oneTokens[0])])
        #expect(deleted.status == 303)
        #expect(deleted.headers["location"] == "/reports?deleted=1")
        let again = try await client.post("/reports/\(second)/delete", [("_csrf", twoTokens[0])])
        #expect(again.status == 303)
        let after = try await client.get("/reports?deleted=1")
        #expect(!after.body.contains("Renamed mill") && !after.body.contains("Queued barn"))
        #expect(after.body.contains(#"class="notice" role="status""#))

        // gzip: a page kept by a request without it is compressed once by the first that takes it, then
        // sent from its compressed parts; each answer decompresses to the same page.
        let plain = try await client.get("/reports")
        var seen: Set<String> = Set(Self.tokens(plain.body))
        for _ in 0..<2 {
            let gzipped = try await client.get("/reports", ["-H", "Accept-Encoding: gzip"])
            #expect(gzipped.headers["content-encoding"] == "gzip")
            let inflated = String(decoding: try #require(Compression.gunzip(gzipped.bytes)), as: UTF8.self)
            #expect(Self.withoutTokens(inflated) == Self.withoutTokens(plain.body))
            #expect(seen.insert(try #require(Self.tokens(inflated).first)).inserted)
        }
    }

    /// A page first asked for with gzip is kept compressed too: every gzip answer is made of the kept
    /// deflate parts and a freshly masked token in stored blocks, and decompresses to the page.
    @Test func aPageKeptCompressedDecompressesToThePage() async throws {
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false"])
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email)
        for index in 0..<70 { _ = try seedReport(server, email: email, state: "stored", name: "Mill \(index)") }
        let queued = try seedReport(server, email: email, state: "queued", name: "Queued mill")
        let gzip = ["-H", "Accept-Encoding: gzip"]

        var tokens: [String] = []
        var pages: [String] = []
        for _ in 0..<3 {
            let answer = try await client.get("/reports?show=100", gzip)
            #expect(answer.status == 200)
            #expect(answer.headers["content-encoding"] == "gzip")
            #expect(answer.headers["vary"] == "Accept-Encoding")
            #expect(answer.headers["etag"]?.hasSuffix("-gzip\"") == true)
            let html = String(decoding: try #require(Compression.gunzip(answer.bytes)), as: UTF8.self)
            #expect(Set(Self.tokens(html)).count == 1)
            tokens += Self.tokens(html).prefix(1)
            pages.append(Self.withoutTokens(html))
        }
        #expect(Set(tokens).count == 3)
        #expect(Set(pages).count == 1)
        let plain = try await client.get("/reports?show=100")
        #expect(plain.headers["content-encoding"] == nil)
        #expect(Self.withoutTokens(plain.body) == pages[0])
        #expect(plain.body.contains(#"data-shown="71""#))
        #expect(
            try await client.get("/reports?show=100", gzip).headers["etag"] == (plain.headers["etag"] ?? "").dropLast()
                + "-gzip\"")
        // A token taken out of a compressed answer works.
        let deleted = try await client.post("/reports/\(queued)/delete", [("_csrf", tokens[1]), ("show", "100")])
        #expect(deleted.status == 303)

        // The JSON the page polls, the same way.
        let json = ["-H", "Accept: application/json"]
        let rows = try await client.get("/api/reports", json + gzip)
        let again = try await client.get("/api/reports", json + gzip)
        #expect(again.headers["content-encoding"] == "gzip")
        let identity = try await client.get("/api/reports", json)
        #expect(try #require(Compression.gunzip(rows.bytes)) == identity.bytes)
        #expect(try #require(Compression.gunzip(again.bytes)) == identity.bytes)
    }

    @Test func compressedPartsJoinToTheBody() throws {
        let marker = Array("QQPLACEQQ".utf8)
        var body: [UInt8] = []
        for index in 0..<400 { body += Array("<li class=\"row\">Row \(index) — ça va</li>\n".utf8) }
        let texts: [[UInt8]] = [
            body, marker + body + marker, body + marker + marker + body + marker, marker, [],
            Array(body[0..<3]) + marker + Array(body[0..<1]),
            // NUL bytes next to a place (the filler of the dictionaries is NULs).
            body + [0, 0] + marker + [0, 0, 0, 0] + Array(body[0..<40]) + [0, 0, 0] + marker + [0, 0, 0] + body,
        ]
        for text in texts {
            let page = KeptPages.Page(userID: 1, body: text, cutAt: marker)
            for token in ["", "ab", String(repeating: "f0", count: 64), String(repeating: "<li", count: 20)] {
                let compressed = page.withGzip(level: 4, tokenLength: token.utf8.count)
                let member = try #require(compressed.gzipBody(token: token))
                #expect(Compression.gunzip(member) == page.pieces(token: token).joined())
                // Another token of the same length (what the next response sends) works as well; one of
                // another length is not made from these parts.
                let other = String(token.reversed())
                #expect(
                    Compression.gunzip(try #require(compressed.gzipBody(token: other)))
                        == page.pieces(token: other).joined())
                #expect(compressed.gzipBody(token: token + "x") == nil)
            }
        }
        // With the earlier parts as dictionary, a page cut in parts compresses about as well as whole.
        let cutUp = KeptPages.Page(userID: 1, body: body + marker + body + marker + body, cutAt: marker)
        let joined = try #require(cutUp.withGzip(level: 4, tokenLength: 2).gzipBody(token: "ab"))
        let whole = try #require(Compression.gzip(cutUp.pieces(token: "ab").joined(), level: 4))
        #expect(joined.count < whole.count + 64)
        let json = KeptPages.Page(userID: 1, body: body).withGzip(level: 9, tokenLength: 0)
        #expect(Compression.gunzip(try #require(json.gzipBody(token: ""))) == body)
        #expect(try #require(json.gzipBody(token: "")).count < body.count / 4)
        #expect(KeptPages.Page(userID: 1, body: body).gzipBody(token: "") == nil)
    }

    @Test func aKeptPageIsNeverAnotherAnswer() async throws {
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false"])
        defer { Task { await server.stop() } }
        let alice = try WebClient(server)
        let aliceEmail = uniqueEmail()
        _ = try await alice.signIn(aliceEmail)
        for index in 0..<60 {
            _ = try seedReport(server, email: aliceEmail, state: "stored", name: "Alice \(index)")
        }
        let page = try await alice.get("/reports")
        #expect(page.body.contains(aliceEmail))
        #expect(page.body.contains(#"data-shown="50""#))

        // Another user: their own page, never Alice's.
        let bob = try WebClient(server)
        let bobEmail = uniqueEmail()
        _ = try await bob.signIn(bobEmail)
        for _ in 0..<2 {
            let theirs = try await bob.get("/reports")
            #expect(theirs.status == 200)
            #expect(theirs.body.contains(bobEmail) && !theirs.body.contains(aliceEmail))
            #expect(!theirs.body.contains("Alice 1"))
            #expect(theirs.headers["etag"] != page.headers["etag"])
        }
        // Bob's empty list as JSON is under a kilobyte: sent as it is, kept or not, as the server would.
        for _ in 0..<2 {
            let rows = try await bob.get(
                "/api/reports", ["-H", "Accept: application/json", "-H", "Accept-Encoding: gzip"])
            #expect(rows.status == 200 && rows.headers["content-encoding"] == nil)
            #expect(rows.body.hasPrefix("{") && rows.bytes.count < Compression.minimumBytes)
        }
        // Another language, another number of rows, a notice: each its own page.
        let french = try await alice.get("/reports", ["-H", "Accept-Language: fr"])
        #expect(french.body.contains(#"<html lang="fr""#))
        #expect(try await alice.get("/reports").body.contains(#"<html lang="en""#))
        #expect(try await alice.get("/reports?show=100").body.contains(#"data-shown="60""#))
        #expect(try await alice.get("/reports").body.contains(#"data-shown="50""#))
        #expect(try await alice.get("/reports?failed=1").body.contains("delete-failure-nojs"))
        #expect(!(try await alice.get("/reports").body.contains("delete-failure-nojs")))

        // Settings saved: the next page shows them.
        let cookie = try #require(alice.cookie("har_session"))
        let session = try #require(WebSessions.hash(token: cookie))
        let stored = try server.application.stores.users.session(tokenHash: session, now: Date().timeIntervalSince1970)
        let userID = try #require(stored?.user.id)
        try server.application.stores.settings.save(
            settings: UserSettings(gpsAccuracyMetres: 77, gpsAlertSeconds: 90, wirelessOnly: true), userID: userID,
            now: Date().timeIntervalSince1970)
        let saved = try await alice.get("/reports")
        #expect(saved.body.contains(#""gpsAccuracyMetres":77"#))
        #expect(saved.headers["etag"] != page.headers["etag"])

        // Made-up queries are answered, not kept: a change behind the version's back shows at once.
        let hostile = "/reports?show=\(String(repeating: "9", count: 4000))&show=50&show=51&x=1"
        let huge = try await alice.get(hostile)
        #expect(huge.status == 200)
        #expect(huge.body.contains("Alice 58"))
        let aliceFirst = try sqlite(
            server.dataDir,
            "SELECT local_id FROM reports WHERE name = 'Alice 58'")
        try Self.renameBehindTheVersionsBack(server, aliceFirst, to: "Renamed by hand")
        #expect(try await alice.get(hostile).body.contains("Renamed by hand"))
    }

    @Test func withTheKeyAtZeroEveryRequestRenders() async throws {
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false", "HAR_LIST_KEPT_BYTES": "0"])
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email)
        let localID = try seedReport(server, email: email, state: "stored", name: "Old name")
        let before = try await client.get("/reports")
        #expect(before.body.contains("Old name"))
        try Self.renameBehindTheVersionsBack(server, localID, to: "New name")
        let after = try await client.get("/reports")
        #expect(after.body.contains("New name"))
        #expect(after.headers["etag"] == before.headers["etag"])
        #expect(Self.tokens(after.body).first != Self.tokens(before.body).first)
    }

    /// The worker's transitions and a reviewer's decision, made through the stores of either backend:
    /// the next GET of the page and of its JSON shows them, never the kept answer.
    @Test(arguments: StoreBackend.all) func aStatusChangeIsNeverHiddenByAKeptPage(backend: StoreBackend) async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var platform: PlatformProcess?
        var environment = ["HAR_WORKER_ENABLED": "false"]
        if backend.name == StoreBackend.postgres.name {
            let upstream = try await PlatformProcess(folder: folder)
            platform = upstream
            environment = PostgresServeTests.environment(
                database: try PostgresCluster.shared().makeDatabase(), platform: upstream)
        }
        let server = try RunningServer(environment: environment)
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        let stores = server.application.stores
        let now = Date().timeIntervalSince1970
        let cookie = try #require(client.cookie("har_session"))
        let session = try #require(WebSessions.hash(token: cookie))
        let userID = try #require(try stores.users.session(tokenHash: session, now: now)?.user.id)
        let (draft, _) = try stores.drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        _ = try stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: now)
        #expect(
            try stores.drafts.submit(
                draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "kept", now: now)
                == .queued)
        let id = try #require(try stores.outbox.reportID(localID: draft.localID))
        let json = ["-H", "Accept: application/json"]

        for _ in 0..<2 {
            #expect(try await client.get("/reports").body.contains("status-queued"))
            #expect(try await client.get("/api/reports", json).body.contains(#""state":"queued""#))
        }
        try stores.outbox.recordNeedsAttention(id, message: "Refused by the platform")
        let attention = try await client.get("/reports")
        #expect(attention.body.contains("status-attention") && attention.body.contains("Refused by the platform"))
        #expect(try await client.get("/api/reports", json).body.contains(#""state":"needs_attention""#))

        #expect(
            try stores.review.decide(
                ReviewDecision(
                    to: .needsInfo, from: [.received], message: "Which side is the porch?", action: "needs_info"),
                id: id, actor: "coordinator@example.org", now: now + 1) == .done)
        #expect(try await client.get("/reports").body.contains("Which side is the porch?"))

        await server.stop()
        await platform?.stop()
    }

    @Test func theStoreStaysWithinItsBounds() {
        let marker = Array("csrfPLACE".utf8)
        let body = Array("<a>csrfPLACE<b>csrfPLACE</b>".utf8)
        let page = KeptPages.Page(userID: 1, body: body, cutAt: marker)
        #expect(page.parts.count == 3)
        #expect(String(decoding: page.pieces(token: "T0").joined(), as: UTF8.self) == "<a>T0<b>T0</b>")
        #expect(KeptPages.Page(userID: 1, body: marker, cutAt: marker).pieces(token: "x").joined() == Array("x".utf8))
        // Against a plain split, on text full of the marker's near misses.
        let noisy = "ccsrfPLACEcsrfPLAC csrfPLACEEcsrfcsrfPLACEPLACE fPLACE csrfPLACE"
        let cut = KeptPages.Page(userID: 1, body: Array(noisy.utf8), cutAt: marker)
        #expect(cut.parts.map { String(decoding: $0, as: UTF8.self) } == noisy.components(separatedBy: "csrfPLACE"))
        #expect(KeptPages.Page(userID: 1, body: Array("csrfPLAC".utf8), cutAt: marker).parts.count == 1)

        // Many users' pages of ~56 KB: the bytes never pass the bound, the newest stay.
        let bound = 1 << 20
        let store = KeptPages(maximumBytes: bound)
        let large = [UInt8](repeating: 0x61, count: 56_000)
        for user in 0..<200 {
            store.keep("\"tag-\(user)\"", KeptPages.Page(userID: Int64(user), body: large, cutAt: marker))
            #expect(store.usage.bytes <= bound)
            #expect(store.usage.count <= KeptPages.maximumEntries)
        }
        #expect(store.page("\"tag-199\"", userID: 199) != nil)
        #expect(store.page("\"tag-0\"", userID: 0) == nil)
        // A kept page is another user's never, even under its tag.
        #expect(store.page("\"tag-199\"", userID: 198) == nil)
        // Least recently used goes first.
        let survivors = (0..<200).filter { store.page("\"tag-\($0)\"", userID: Int64($0)) != nil }
        #expect(!survivors.isEmpty)
        _ = store.page("\"tag-\(survivors[0])\"", userID: Int64(survivors[0]))
        store.keep("\"tag-new\"", KeptPages.Page(userID: 7, body: large, cutAt: marker))
        #expect(store.page("\"tag-\(survivors[0])\"", userID: Int64(survivors[0])) != nil)

        // Small pages: the entry bound holds.
        let small = KeptPages(maximumBytes: 64 << 20)
        for index in 0..<1000 { small.keep("\"s-\(index)\"", KeptPages.Page(userID: 1, body: [1, 2, 3])) }
        #expect(small.usage.count == KeptPages.maximumEntries)
        // Larger than an eighth of the bound: not kept. Nothing at all with a bound of 0.
        let tight = KeptPages(maximumBytes: 100_000)
        tight.keep("\"big\"", KeptPages.Page(userID: 1, body: large))
        #expect(tight.usage.count == 0)
        let off = KeptPages(maximumBytes: 0)
        off.keep("\"t\"", KeptPages.Page(userID: 1, body: [1]))
        #expect(off.page("\"t\"", userID: 1) == nil && !off.isOn)
    }

    /// Lookups take the read lock only (their recency is an atomic stamp), so the poll threads never wait
    /// on one another for the list: many threads at once, looking up and keeping over one small store,
    /// only ever get the page of their own tag and user, and the bounds hold throughout.
    @Test func lookupsAndKeepsFromManyThreadsAtOnce() {
        let bound = 64 * 1024
        let store = KeptPages(maximumBytes: bound)
        @Sendable func body(_ user: Int) -> [UInt8] {
            Array("<p>user \(user)</p>".utf8) + [UInt8](repeating: 0x61, count: 1_000)
        }
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<2_000 {
                let user = (thread * 7 + round) % 40
                let tag = "\"tag-\(user)\""
                if let page = store.page(tag, userID: Int64(user)) {
                    if page.userID != Int64(user) || page.pieces(token: "").joined() != body(user) {
                        wrong.add(1, ordering: .relaxed)
                    }
                } else {
                    store.keep(tag, KeptPages.Page(userID: Int64(user), body: body(user)))
                }
                // Never another user's page under this tag.
                if store.page(tag, userID: Int64(user + 1)) != nil { wrong.add(1, ordering: .relaxed) }
                if round % 100 == 0 {
                    let usage = store.usage
                    if usage.bytes > bound || usage.count > KeptPages.maximumEntries {
                        wrong.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(store.usage.count > 0 && store.usage.bytes <= bound)
    }
}
