import Foundation
import HTTPServer
import Testing

@testable import HeritageApp

/// The list and its JSON carry a strong ETag from the user's list version; an unchanged list
/// is a 304 (no rows read, nothing rendered), and a change, the upload worker's included, is never
/// hidden by one.
@Suite(.serialized) struct ListRevalidationTests {
    @Test func anUnchangedListIsA304AndAChangeIsNot() async throws {
        // No upload worker: it would take the seeded queued report on its way at a moment of its own
        // and move the list between two requests that expect it unchanged (the test then failed now
        // and then, rightly answered 200); the change below stands for the worker's.
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false"])
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email)
        for _ in 0..<30 { _ = try seedReport(server, email: email, state: "stored", name: "Chapel") }
        let queued = try seedReport(server, email: email, state: "queued", name: "Chapel")

        let first = try await client.get("/reports")
        #expect(first.status == 200)
        #expect(first.headers["cache-control"] == "private, no-cache")
        let tag = try #require(first.headers["etag"])
        #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
        let again = try await client.get("/reports", ["-H", "If-None-Match: \(tag)"])
        #expect(again.status == 304)
        #expect(again.bytes.isEmpty)
        #expect(again.headers["etag"] == tag)
        #expect(again.headers["cache-control"] == "private, no-cache")

        // gzip: its own tag, and a 304 for it.
        let gzipped = try await client.get("/reports", ["-H", "Accept-Encoding: gzip"])
        #expect(gzipped.headers["content-encoding"] == "gzip")
        let gzipTag = try #require(gzipped.headers["etag"])
        #expect(gzipTag != tag && gzipTag.hasSuffix("-gzip\""))
        let html = String(decoding: try #require(Compression.gunzip(gzipped.bytes)), as: UTF8.self)
        #expect(html.contains("report-row"))
        let gzipAgain = try await client.get(
            "/reports", ["-H", "Accept-Encoding: gzip", "-H", "If-None-Match: \(gzipTag)"])
        #expect(gzipAgain.status == 304)
        #expect(gzipAgain.headers["etag"] == gzipTag)

        // Another number of rows, notice or language is another answer.
        #expect(try await client.get("/reports?show=100", ["-H", "If-None-Match: \(tag)"]).status == 200)
        #expect(try await client.get("/reports?deleted=1", ["-H", "If-None-Match: \(tag)"]).status == 200)
        #expect(
            try await client.get("/reports", ["-H", "If-None-Match: \(tag)", "-H", "Accept-Language: fr"]).status
                == 200)

        // A change made behind the server's back (as the worker makes it): the next request is a 200.
        try sqlite(server.dataDir, "UPDATE reports SET state = 'stored' WHERE local_id = '\(queued)'")
        let changed = try await client.get("/reports", ["-H", "If-None-Match: \(tag)"])
        #expect(changed.status == 200)
        #expect(changed.headers["etag"] != tag)
        // A bookkeeping change the list does not show leaves it alone.
        let newTag = try #require(changed.headers["etag"])
        try sqlite(server.dataDir, "UPDATE reports SET attempts = attempts + 1, updated_at = updated_at + 1")
        #expect(try await client.get("/reports", ["-H", "If-None-Match: \(newTag)"]).status == 304)

        // The JSON the page polls, the same way.
        let rows = try await client.get("/api/reports", ["-H", "Accept: application/json"])
        let rowsTag = try #require(rows.headers["etag"])
        #expect(rowsTag != newTag)
        #expect(
            try await client.get("/api/reports", ["-H", "Accept: application/json", "-H", "If-None-Match: \(rowsTag)"])
                .status == 304)

        // A new session (signed out and in again) carries a new CSRF token: its page is another answer.
        let token = try await client.csrf(from: "/settings")
        _ = try await client.post("/signout", [("_csrf", token)])
        _ = try await client.signIn(email)
        #expect(try await client.get("/reports", ["-H", "If-None-Match: \(newTag)"]).status == 200)
        // Signed out, a tag gets nobody's list.
        let stranger = try WebClient(server)
        let signedOut = try await stranger.get("/reports", ["-H", "If-None-Match: \(newTag)"])
        #expect(signedOut.status == 303)
    }

    /// On SQLite the session and the list version of a 304 come from what the reader kept (validated
    /// by the file's data version): a revocation from another connection signs out at once, and the
    /// session's end by time is honoured although nothing was committed.
    @Test func aKeptSessionEndsOnTimeAndOnRevocation() async throws {
        let server = try RunningServer()
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email)
        _ = try seedReport(server, email: email, state: "stored", name: "Chapel")
        let tag = try #require(try await client.get("/reports").headers["etag"])
        #expect(try await client.get("/reports", ["-H", "If-None-Match: \(tag)"]).status == 304)

        // Three seconds left, written from another connection (a commit: the next read reads again).
        try sqlite(server.dataDir, "UPDATE web_sessions SET expires_at = (julianday('now') - 2440587.5) * 86400.0 + 3")
        let expires = try #require(Double(try sqlite(server.dataDir, "SELECT expires_at FROM web_sessions")))
        for _ in 0..<3 {
            let status = try await client.get("/reports", ["-H", "If-None-Match: \(tag)"]).status
            // An answer back before the expiry was decided before it: the session still held. One back
            // later (a machine too busy to send three requests in three seconds) may be either.
            if Date().timeIntervalSince1970 < expires { #expect(status == 304) }
        }
        while Date().timeIntervalSince1970 <= expires + 0.05 { try await Task.sleep(for: .milliseconds(100)) }
        let ended = try await client.get("/reports", ["-H", "If-None-Match: \(tag)"])
        #expect(ended.status == 303)
        #expect(ended.headers["location"]?.hasPrefix("/signin") == true)

        // Revoked from another connection, as `har users` or an administrator's sqlite3 would.
        _ = try await client.signIn(email)
        let again = try #require(try await client.get("/reports").headers["etag"])
        for _ in 0..<3 {
            #expect(try await client.get("/reports", ["-H", "If-None-Match: \(again)"]).status == 304)
        }
        try sqlite(server.dataDir, "DELETE FROM web_sessions")
        let revoked = try await client.get("/reports", ["-H", "If-None-Match: \(again)"])
        #expect(revoked.status == 303)
        #expect(revoked.headers["location"]?.hasPrefix("/signin") == true)
    }

    /// The real upload worker takes a report through its states while the test polls `/api/reports` as
    /// the page does, sending the tag it holds. Whenever the database showed another state than the
    /// one held before a poll was sent, that poll must be a 200 with the news: a 304 then would have
    /// hidden a status change.
    @Test func aWorkerTransitionIsNeverHiddenByA304() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=150")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        let serve = try RunningServer(environment: serveEnvironment(dataDir: fixture.dataDir, platform: platform))
        let browser = try WebReporter(baseURL: serve.baseURL, folder: folder)
        try await browser.signIn(email: "polling@example.org")
        let (localID, _) = try await browser.submitReport(
            name: "Polled chapel", photos: 3, latitude: 51.5, longitude: 0)

        var held: (tag: String, state: String)?
        var statesSeen: [String] = []
        var notModified = 0
        let deadline = Date().addingTimeInterval(120)
        while held?.state != "stored" {
            #expect(Date() < deadline, "the report was never shown stored")
            if Date() >= deadline { break }
            let before = try fixture.state(of: localID).state
            var headers = [("Accept", "application/json"), ("Accept-Encoding", "gzip")]
            if let held { headers.append(("If-None-Match", held.tag)) }
            let answer = try await browser.http.get("/api/reports", headers: headers)
            if answer.status == 304 {
                notModified += 1
                #expect(before == held?.state, "a 304 hid \(before) behind \(held?.state ?? "nothing")")
                continue
            }
            #expect(answer.status == 200)
            let body =
                answer.headers["content-encoding"] == "gzip"
                ? try #require(Compression.gunzip(answer.bytes)) : answer.bytes
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            let rows = try #require(json["rows"] as? [[String: Any]])
            let state = try #require(rows.first { $0["id"] as? String == localID }?["state"] as? String)
            held = (try #require(answer.headers["etag"]), state)
            if statesSeen.last != state { statesSeen.append(state) }
        }
        #expect(statesSeen.last == "stored")
        #expect(statesSeen.count >= 2, "the polls saw the report on its way, then stored: \(statesSeen)")
        // Settled: polls of the unchanged list are 304s.
        if let held {
            for _ in 0..<3 {
                let answer = try await browser.http.get(
                    "/api/reports",
                    headers: [("Accept", "application/json"), ("Accept-Encoding", "gzip"), ("If-None-Match", held.tag)])
                #expect(answer.status == 304)
            }
        }
        await serve.stop()
        await platform.stop()
    }
}
