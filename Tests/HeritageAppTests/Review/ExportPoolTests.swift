import Foundation
import Testing

@testable import HeritageApp

/// The review's exports and bulk actions run on small pools of their own (docs/REVIEW.md): never on a
/// poll thread; exports below photo decoding, one at a time per coordinator, and not at all while the
/// data folder's disk is under the uploads' floor.
@Suite(.serialized) struct ExportPoolTests {
    private func export(_ client: SignedInClient, _ path: String = "/review/export.csv") async throws -> CurlResponse {
        let token = try SignedInClient.csrf(in: try await client.get("/review").body)
        return try await client.http.curl(path, ["--data-urlencode", "_csrf=\(token)"])
    }

    @Test func anExportHoldsNoPollThreadAndACoordinatorRunsOneAtATime() async throws {
        // One poll thread: an export running on it would stall every other request.
        let server = try ReviewTests.server(["HAR_THREADS": "1"])
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        // The same coordinator on another device (a client's connection waits for its own answer).
        let elsewhere = try await SignedInClient(server, email: ReviewTests.coordinator)
        let hold = server.application.exports.work.holdJobs()
        let token = try SignedInClient.csrf(in: try await coordinator.get("/review").body)
        let http = coordinator.http
        let first = Task { try await http.curl("/review/export.csv", ["--data-urlencode", "_csrf=\(token)"]) }
        try await waitUntil("the export is on the pool", timeout: 10, interval: 0.02) { hold.held == 1 }

        // The export is held on the pool until `hold.open()`: these answer only if it holds no poll thread.
        #expect(try await curl(server.baseURL + "/healthz").status == 200)
        #expect(try await elsewhere.get("/review").status == 200)
        let second = try await export(elsewhere, "/review/export.geojson")
        #expect(second.status == 429 && second.body.contains("You already have an export under way"))
        #expect(second.headers["retry-after"] == "5")

        hold.open()
        let made = try await first.value
        #expect(made.status == 200 && made.body.contains("id,local_id"), "\(made.status)")
        #expect(try await export(coordinator, "/review/export.geojson").status == 200, "the next one runs")
        await server.stop()
    }

    @Test func aBulkActionHoldsNoPollThread() async throws {
        let server = try ReviewTests.server(["HAR_THREADS": "1"])
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let ids = try ReviewTests.insertReports(server, email: coordinator.email, count: 2, prefix: "Pooled mill")
        let token = try SignedInClient.csrf(in: try await coordinator.get("/review").body)
        let hold = server.application.exports.bulk.holdJobs()
        let http = coordinator.http
        var arguments = ["--data-urlencode", "_csrf=\(token)", "--data-urlencode", "action=approve"]
        arguments += ["--data-urlencode", "confirm=2"] + ids.flatMap { ["--data-urlencode", "ids=\($0)"] }
        let fixed = arguments
        let bulk = Task { try await http.curl("/review/bulk", fixed) }
        try await waitUntil("the bulk action is on the pool", timeout: 10, interval: 0.02) { hold.held == 1 }
        // Held on the pool until `hold.open()`: /healthz answers only if the bulk action holds no poll thread.
        #expect(try await curl(server.baseURL + "/healthz").status == 200)
        hold.open()
        let done = try await bulk.value
        #expect(done.status == 200 || done.status == 303, "\(done.status)")
        #expect(try sqlite(server.dataDir, "SELECT group_concat(review_state) FROM reports") == "approved,approved")
        await server.stop()
    }

    /// Exports run below photo decoding, so that a volunteer's photo does not wait for a coordinator's
    /// file; bulk actions, which hold the write lock, run above it (`ExportRunner.exportNice`).
    @Test func exportsRunBelowPhotoDecodingAndBulkActionsAboveIt() async throws {
        let server = try ReviewTests.server()
        let runner = server.application.exports
        let mine = BlockingWork.threadNice()
        let export = try await runner.work.run { BlockingWork.threadNice() }
        let bulk = try await runner.bulk.run { BlockingWork.threadNice() }
        #expect(export == min(19, mine + ExportRunner.exportNice))
        #expect(bulk == min(19, mine + ExportRunner.bulkNice))
        #expect(ExportRunner.exportNice > Drafts.photoNice && Drafts.photoNice > ExportRunner.bulkNice)
        await server.stop()
    }

    @Test func noExportUnderTheDiskFloor() async throws {
        let server = try ReviewTests.server(["HAR_UPLOAD_MIN_FREE_BYTES": String(1 << 50)])
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        for path in ["/review/export.csv", "/review/export.zip", "/review/audit.csv"] {
            let refused = try await export(coordinator, path)
            #expect(refused.status == 507, "\(path): \(refused.status)")
            #expect(refused.body.contains("short of disk space"))
        }
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM review_audit WHERE action LIKE 'export%'") == "0")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: server.dataDir + "/exports")) ?? []).isEmpty)
        await server.stop()
    }
}
