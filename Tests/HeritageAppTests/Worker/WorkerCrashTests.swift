import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

extension WorkerTests {
    /// 2. `kill -9` of `har serve` at random moments while it drains the faulty queue, ten times,
    /// restarting each time: the platform (its own process, which survives) ends with exactly the
    /// captured reports and photos. The 50 reports go in first through the web endpoints of the
    /// application built in-process with its worker off (so that the kills land on a full queue), which is then stopped.
    @Test func killedServeTenTimesStillExactlyOnce() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "fail5xx=0.3,drop=0.1,latency_ms=200,seed=11")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        let submitting = try RunningServer(
            environment: serveEnvironment(dataDir: fixture.dataDir, platform: platform, workerEnabled: false))
        let browser = try WebReporter(baseURL: submitting.baseURL, folder: folder)
        try await browser.signIn(email: "crash@example.org")
        try await browser.submitReports(50, tag: "crash", into: fixture)
        #expect(Set(fixture.captured.flatMap(\.photoHashes)).count == 150, "150 distinct photos sent")
        await submitting.stop()
        #expect(try fixture.states()["queued"] == 50)
        let environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform)
        var storedBeforeKills: [Int] = []
        for _ in 0..<10 {
            let serve = try HarProcess(["serve"], environment: environment, folder: folder)
            _ = try await serve.waitForPort()
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1500)))
            await serve.killHard()
            storedBeforeKills.append(try fixture.states()["stored", default: 0])
        }
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        let port = try await serve.waitForPort()
        try await waitUntil("all 50 reports are stored", timeout: 240) { try fixture.states()["stored"] == 50 }
        let metrics = try await curl("http://127.0.0.1:\(port)/metrics")
        #expect(metrics.body.contains("har_outbox_reports{state=\"stored\"} 50"))
        await serve.terminate()
        #expect(serve.process.terminationStatus == 0, "\(serve.errors)")
        // The kills landed mid-queue, not all before or after the work.
        #expect(storedBeforeKills.first ?? 50 < 50)
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)
        await platform.stop()
    }
}
