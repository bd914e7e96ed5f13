import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The busiest requests hold to their database round trips, counted through the real server on its
/// socket (`StatementCounts`, as `/metrics` shows them), not timed: the list's 304 and its kept page
/// start no statement (the session's memo checked against the WAL index's header) and write nothing;
/// `/healthz` starts one; a static file touches no database at all. A change that adds a statement or
/// a write to one of them (a session touched per request, a count read per page) fails
/// here, not weeks later in a benchmark (LST-01, LOG-01).
@Suite(.serialized) struct HotPathStatementTests {
    /// The most statements one request of each kind may start.
    /// None: the session's memo is checked against the WAL index's header, with no statement while
    /// the file is unchanged (it was one `PRAGMA data_version` per request).
    static let readsPer304 = 0
    static let readsPerKeptList = 0
    /// The session's memo and the page's one snapshot (`Stores.together`).
    static let readersPerRenderedList = 2

    /// Statements and writes `requests` requests started, the fewest over up to `tries` tries, stopping
    /// at the first try within `statements` and `writes`: the counts are the process's, so whatever else
    /// runs in it (a background job's poll, another suite's server when suites run side by side) can only
    /// add to a try, never take away; a request that really makes a statement or a write does so in
    /// every try.
    /// The readers taken from the pool (`StatementCounts.readerCheckouts`) count the same way, within `readers`.
    static func counted(
        _ requests: Int, tries: Int = 8, statements bound: Int = 0, writes writeBound: Int = 0,
        readers readerBound: Int = .max, _ request: () async throws -> Void
    ) async throws -> (statements: Int, writes: Int, readers: Int) {
        var fewest = (statements: Int.max, writes: Int.max, readers: Int.max)
        for _ in 0..<tries {
            let counts = StatementCounts.process
            let (statements, writes, readers) = (counts.statements, counts.writes, counts.readerCheckouts)
            for _ in 0..<requests { try await request() }
            fewest.statements = min(fewest.statements, counts.statements - statements)
            fewest.writes = min(fewest.writes, counts.writes - writes)
            fewest.readers = min(fewest.readers, counts.readerCheckouts - readers)
            if fewest.statements <= bound && fewest.writes <= writeBound && fewest.readers <= readerBound { break }
        }
        return fewest
    }

    @Test func theListsRevalidationAndKeptPageReadOnceAndNeverWriteLST01() async throws {
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false"])
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email)
        for index in 0..<3 { _ = try seedReport(server, email: email, state: "stored", name: "Chapel \(index)") }
        let first = try await client.get("/reports")
        #expect(first.status == 200)
        let tag = try #require(first.headers["etag"])

        let requests = 20
        let revalidated = try await Self.counted(requests) {
            let answer = try await client.get("/reports", ["-H", "If-None-Match: \(tag)"])
            #expect(answer.status == 304)
        }
        #expect(revalidated.writes == 0, "the 304 wrote \(revalidated.writes) times in \(requests) requests")
        #expect(
            revalidated.statements <= requests * Self.readsPer304,
            "the 304 started \(revalidated.statements) statements in \(requests) requests")

        let kept = try await Self.counted(requests) {
            let answer = try await client.get("/reports")
            #expect(answer.status == 200 && answer.headers["etag"] == tag)
        }
        #expect(kept.writes == 0, "the kept list wrote \(kept.writes) times in \(requests) requests")
        #expect(
            kept.statements <= requests * Self.readsPerKeptList,
            "the kept list started \(kept.statements) statements in \(requests) requests")

        let staticFile = try await Self.counted(requests) {
            let answer = try await client.get("/static/css/app.css")
            #expect(answer.status == 200)
        }
        #expect(staticFile.statements == 0 && staticFile.writes == 0, "a static file: \(staticFile)")

        // /healthz, polled by monitors and measured under load: one statement, outside a transaction.
        let health = try await Self.counted(requests, statements: requests) {
            let answer = try await client.get("/healthz")
            #expect(answer.status == 200)
        }
        #expect(
            health.statements <= requests && health.writes == 0,
            "/healthz started \(health.statements) statements in \(requests) requests")
    }

    /// The guard sees what it guards: the list rendered (no kept pages) reads its rows and count past
    /// the kept page's one statement, and a sign-in (the session stored) counts as writes. The list
    /// rendered reads its rows, the review's notices, the kiosks' receipts and the bell in one snapshot:
    /// two readers per request, the session's and the page's (each of the four took its own before).
    @Test func theCountsSeeReadsAndWritesLST01() async throws {
        let server = try RunningServer(environment: ["HAR_WORKER_ENABLED": "false", "HAR_LIST_KEPT_BYTES": "0"])
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let email = uniqueEmail()
        let signedIn = try await Self.counted(1, tries: 1) {
            let answer = try await client.signIn(email)
            #expect(answer.status == 303)
        }
        #expect(signedIn.writes > 0, "\(signedIn)")
        _ = try seedReport(server, email: email, state: "stored", name: "Chapel")
        let requests = 10
        let rendered = try await Self.counted(
            requests, statements: .max, readers: requests * Self.readersPerRenderedList
        ) {
            let answer = try await client.get("/reports")
            #expect(answer.status == 200)
        }
        #expect(rendered.statements > requests && rendered.writes == 0, "\(rendered)")
        #expect(
            rendered.readers <= requests * Self.readersPerRenderedList,
            "the list rendered took \(rendered.readers) readers in \(requests) requests")
    }
}
