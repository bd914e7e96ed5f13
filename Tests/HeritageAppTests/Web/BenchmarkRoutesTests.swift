import Foundation
import SQLiteStorage
import Testing

/// The page `bench/run` measures as "template page with 50 SQLite rows": on only with
/// `benchmark_routes`, and a real read of its database on every request (nothing kept between them).
@Suite struct BenchmarkRoutesTests {
    @Test func rowsPageReadsFiftyRowsOnEveryRequest() async throws {
        let server = try RunningServer(environment: ["HAR_BENCHMARK_ROUTES": "true"])
        let client = try WebClient(server)
        let first = try await client.get("/bench/rows")
        #expect(first.status == 200)
        #expect(first.body.components(separatedBy: "<li>").count - 1 == 50)
        #expect(first.body.contains("<strong>Chapel of St Ninian &amp; &lt;Friends&gt; no. 1</strong>"))
        #expect(first.body.contains("<strong>Chapel of St Ninian &amp; &lt;Friends&gt; no. 50</strong>"))

        // A change made by another connection shows on the next request.
        let database = try Database(path: server.dataDir + "/bench.sqlite")
        try database.run("UPDATE sample_rows SET name = 'Renamed <now>' WHERE id = 1")
        database.close()
        let second = try await client.get("/bench/rows")
        #expect(second.status == 200)
        #expect(second.body.contains("<strong>Renamed &lt;now&gt;</strong>"))
        #expect(!second.body.contains("no. 1</strong>"))
        await server.stop()
    }

    @Test func rowsPageIsOffByDefault() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        #expect(try await client.get("/bench/rows").status == 404)
        await server.stop()
    }
}
