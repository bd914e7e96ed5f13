import Foundation
import Testing

@testable import HeritageApp

/// Triage (REV-13) on the real server: which report the server sends a coordinator to after each
/// decision, in the order of the dashboard's filter; the Undo; a stale decision.
@Suite(.serialized) struct ReviewTriageTests {
    static let coordinator = ReviewTests.coordinator

    /// A decision posted from a triage page of the filter `filter`, as its form sends it.
    static func decide(
        _ client: SignedInClient, _ id: Int64, _ fields: [(String, String)], filter: [(String, String)]
    ) async throws -> CurlResponse {
        try await ReviewTests.post(
            client, "/review/reports/\(id)/action", fields + filter + [("triage", "1")], tokenFrom: "/review")
    }

    /// The report a triage address opens, or nil when it is not a report's page.
    static func reportID(_ location: String?) -> Int64? {
        guard let location, location.hasPrefix("/review/reports/") else { return nil }
        return Int64(location.dropFirst("/review/reports/".count).prefix { $0.isNumber })
    }

    /// REV-13: "next" is the next waiting report in the filter's order (oldest or newest first), the
    /// filter kept in the address; a report another coordinator claimed is passed over; a skipped report
    /// comes back once the ones after it are decided; then the page says nothing waits, with the way back.
    @Test func rev13NextWaitingFollowsTheFilterOrder() async throws {
        let server = try ReviewTests.server()
        let me = try await SignedInClient(server, email: Self.coordinator)
        let kilns = try ReviewTests.insertReports(server, email: me.email, count: 6, prefix: "Kiln")
        try ReviewTests.insertReports(server, email: me.email, count: 2, prefix: "Mill")
        // Oldest first: the first kiln, then the second after it is approved.
        let oldest = [("q", "kiln"), ("sort", "oldest")]
        let start = try await me.get("/review/triage?q=kiln&sort=oldest")
        #expect(start.status == 303)
        #expect(start.headers["location"] == "/review/reports/\(kilns[0])?triage=1&q=kiln&sort=oldest")
        let first = try await Self.decide(me, kilns[0], [("action", "approve")], filter: oldest)
        #expect(first.status == 303)
        #expect(
            first.headers["location"]
                == "/review/reports/\(kilns[1])?triage=1&q=kiln&sort=oldest&undo=\(kilns[0])&did=approve")
        // The page it opens is in triage, with the filter in its forms and the Undo of the approval.
        let page = try await me.get(try #require(first.headers["location"]))
        #expect(page.status == 200)
        #expect(page.body.contains(#"<input type="hidden" name="triage" value="1">"#))
        #expect(page.body.contains(#"<input type="hidden" name="sort" value="oldest">"#))
        #expect(page.body.contains(#"id="undo-form""#) && page.body.contains(#"name="undo_of" value="approve""#))
        #expect(page.body.contains("5 waiting for a decision"))
        // Newest first (the dashboard's default): the sixth kiln; a skip ("from") goes on to the fifth.
        let newest = try await me.get("/review/triage?q=kiln")
        #expect(Self.reportID(newest.headers["location"]) == kilns[5])
        let skipped = try await me.get("/review/triage?q=kiln&from=\(kilns[5])")
        #expect(Self.reportID(skipped.headers["location"]) == kilns[4])
        // Claimed by someone else: passed over.
        try sqlite(
            server.dataDir,
            """
            UPDATE reports SET claimed_by = 'someone@example.org', claimed_until = \(Date().timeIntervalSince1970 + 600)
            WHERE id = \(kilns[4])
            """)
        let kiln = [("q", "kiln")]
        let claimed = try await Self.decide(me, kilns[5], [("action", "reject"), ("reason", "test")], filter: kiln)
        #expect(Self.reportID(claimed.headers["location"]) == kilns[3])
        // The third skipped: it comes back once the ones after it in the order are decided.
        let skip = try await me.get("/review/triage?q=kiln&from=\(kilns[3])")
        #expect(Self.reportID(skip.headers["location"]) == kilns[2])
        _ = try await Self.decide(me, kilns[2], [("action", "approve")], filter: kiln)
        let wrapped = try await Self.decide(me, kilns[1], [("action", "approve")], filter: kiln)
        #expect(Self.reportID(wrapped.headers["location"]) == kilns[3])
        let last = try await Self.decide(
            me, kilns[3], [("action", "needs_info"), ("message", "Which kiln?")], filter: kiln)
        #expect(last.headers["location"] == "/review/triage?q=kiln&undo=\(kilns[3])&did=needs_info")
        let empty = try await me.get(try #require(last.headers["location"]))
        #expect(empty.status == 200)
        #expect(
            empty.body.contains("Nothing waits for a decision") && empty.body.contains(#"href="/review?q&#61;kiln""#))
        #expect(empty.body.contains(#"name="undo_of" value="needs_info""#))
        // The mills were never in this filter: still waiting.
        #expect(
            try sqlite(
                server.dataDir, "SELECT count(*) FROM reports WHERE name LIKE 'Mill %' AND review_state = 'received'")
                == "2")
        await server.stop()
    }

    /// REV-13: a decision posted from a stale page on a report already decided gets the conflict
    /// message (409, who did what) and no second audit row; the page offers the next waiting report.
    @Test func rev13StaleDecisionIsAConflictNotASecondDecision() async throws {
        let server = try ReviewTests.server()
        let me = try await SignedInClient(server, email: Self.coordinator)
        let ids = try ReviewTests.insertReports(server, email: me.email, count: 2, prefix: "Byre")
        let filter = [("q", "byre")]
        let done = try await Self.decide(me, ids[0], [("action", "approve")], filter: filter)
        #expect(done.status == 303)
        for stale in [
            [("action", "approve")], [("action", "reject"), ("reason", "test")],
            [("action", "duplicate"), ("duplicate_of", String(ids[1]))],
        ] {
            let again = try await Self.decide(me, ids[0], stale, filter: filter)
            #expect(again.status == 409)
            #expect(again.body.contains("Already done by \(Self.coordinator)"))
            #expect(again.body.contains(#"href="/review/triage?q&#61;byre&amp;from&#61;\#(ids[0])""#))
        }
        let decisions = try sqlite(
            server.dataDir,
            "SELECT count(*) FROM review_audit WHERE report_id = \(ids[0]) AND action IN ('approve', 'reject', 'duplicate')"
        )
        #expect(decisions == "1")
        #expect(try sqlite(server.dataDir, "SELECT review_state FROM reports WHERE id = \(ids[0])") == "approved")
        await server.stop()
    }

    /// REV-13: the Undo of a triage decision is the review's undo: this coordinator's decision, within
    /// its 10 seconds, back to the state before, audited as `undo`; once only, and never another's.
    @Test func rev13UndoOfATriageDecision() async throws {
        let server = try ReviewTests.server()
        let me = try await SignedInClient(server, email: Self.coordinator)
        let ids = try ReviewTests.insertReports(server, email: me.email, count: 2, prefix: "Forge")
        let filter = [("q", "forge")]
        let marked = try await Self.decide(
            me, ids[0], [("action", "duplicate"), ("duplicate_of", String(ids[1]))], filter: filter)
        #expect(Self.reportID(marked.headers["location"]) == ids[1])
        let other = try await SignedInClient(server, email: "someone@example.org")
        let refused = try await Self.decide(
            other, ids[0], [("action", "undo"), ("undo_of", "duplicate")], filter: filter)
        #expect(refused.status == 409 && refused.body.contains("Too late to undo"))
        let undone = try await Self.decide(me, ids[0], [("action", "undo"), ("undo_of", "duplicate")], filter: filter)
        #expect(undone.status == 303)
        #expect(undone.headers["location"] == "/review/reports/\(ids[0])?done=undo&q=forge&triage=1")
        #expect(
            try sqlite(
                server.dataDir,
                "SELECT review_state || ' ' || coalesce(duplicate_of, '-') FROM reports WHERE id = \(ids[0])")
                == "received -")
        let twice = try await Self.decide(me, ids[0], [("action", "undo"), ("undo_of", "duplicate")], filter: filter)
        #expect(twice.status == 409)
        #expect(
            try sqlite(server.dataDir, "SELECT group_concat(action, ',') FROM review_audit WHERE report_id = \(ids[0])")
                == "duplicate,undo")
        await server.stop()
    }
}
