import Foundation
import Testing

@testable import HeritageApp

/// The coordinator's report page lists the worker's delivery attempts (REV-06), against the
/// local platform as its own process answering 429 to a share of its calls.
@Suite(.serialized) struct DeliveryAttemptsPageTests {
    /// The outcome keys and HTTP statuses of the page's attempts table, oldest first.
    static func attempts(in page: String) -> [(outcome: String, status: String)] {
        guard let start = page.range(of: "id=\"delivery-attempts\""),
            let end = page.range(of: "</table>", range: start.upperBound..<page.endIndex)
        else { return [] }
        let table = page[start.upperBound..<end.lowerBound]
        return table.components(separatedBy: "<tr class=\"attempt-").dropFirst().map { row in
            let outcome = String(row.prefix { $0 != "\"" })
            let cells = row.components(separatedBy: "<td>").map { $0.components(separatedBy: "</td>")[0] }
            return (outcome, cells.count > 4 ? cells[4] : "")
        }.reversed()
    }

    /// REV-06: the platform refuses some calls with 429; the report is stored in the end, and its page
    /// lists the refused attempts (retry, 429) before the last one, a success, with no session in it.
    @Test func rev06ReportPageListsFailedAttemptsThenTheSuccess() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(
            folder: folder, faults: "fail429=0.6,seed=5", verified: "lead@example.org")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        var environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform)
        environment["HAR_COORDINATORS"] = "lead@example.org"
        environment["HAR_PLATFORM_VERIFIED"] = "lead@example.org"
        let serve = try RunningServer(environment: environment)
        let browser = try WebReporter(baseURL: serve.baseURL, folder: folder)
        try await browser.signIn(email: "reporter@example.org")
        try await browser.submitReports(1, photos: 2, tag: "attempts", into: fixture)
        let report = fixture.captured[0]
        try await waitUntil("the report is stored", timeout: 120) {
            try fixture.state(of: report.localID).state == "stored"
        }
        // The coordinator signs in through the same faulty platform: with the reporter's retries.
        let lead = try WebReporter(baseURL: serve.baseURL, folder: folder + "/lead")
        try await lead.signIn(email: "lead@example.org")
        let page = try await lead.get("/review/reports/\(report.id)")
        #expect(page.status == 200)
        #expect(page.body.contains("Delivery attempts"))
        let rows = Self.attempts(in: page.body)
        #expect(rows.contains { $0.outcome == "retry" && $0.status == "429" }, "\(rows)")
        #expect(rows.last?.outcome == "ok", "the last attempt is the success: \(rows)")
        #expect(rows.filter { $0.outcome == "ok" }.count == 3, "create and two photos: \(rows)")
        #expect(!rows.contains { $0.outcome == "failed" })
        let french = try await lead.http.curl("/review/reports/\(report.id)", ["-H", "Accept-Language: fr"])
        #expect(french.body.contains("Tentatives d’envoi") || french.body.contains("Tentatives d&#x27;envoi"))
        await serve.stop()
        try checkPlatformHolds([report], platformDatabase: platform.databasePath)
        await platform.stop()
    }
}
