import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// REV-03 against the local platform as its own process, its database checked at the end.
@Suite(.serialized) struct ReviewPolicyTests {
    /// The platform as its own process, `har serve` (worker running) under `policy` with the coordinator
    /// lead@example.org (verified there), and a reporter signed in through the web endpoints.
    static func started(in folder: String, policy: String) async throws
        -> (PlatformProcess, OutboxFixture, RunningServer, WebReporter)
    {
        let platform = try await PlatformProcess(folder: folder, verified: "lead@example.org")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        var environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform)
        environment["HAR_REVIEW_POLICY"] = policy
        environment["HAR_COORDINATORS"] = "lead@example.org"
        environment["HAR_PLATFORM_VERIFIED"] = "lead@example.org"
        let serve = try RunningServer(environment: environment)
        let browser = try WebReporter(baseURL: serve.baseURL, folder: folder)
        try await browser.signIn(email: "reporter@example.org")
        return (platform, fixture, serve, browser)
    }

    /// Policy `all`: two reports submitted through the web endpoints wait (the worker runs, the platform
    /// gets nothing); the coordinator finds one by filter and approves it, rejects the other; the
    /// platform then holds exactly the approved one, once, with its photos; the rejected one stays here.
    @Test func rev03WaitingReportsNeverReachThePlatformApprovedOnceExactly() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (platform, fixture, serve, browser) = try await Self.started(in: folder, policy: "all")
        try await browser.submitReports(2, photos: 2, tag: "policy", into: fixture)
        let (approved, rejected) = (fixture.captured[0], fixture.captured[1])
        // The worker is running and polls every second: give it several chances to misbehave.
        try await Task.sleep(for: .seconds(3))
        #expect(try fixture.states() == ["queued": 2])
        try checkPlatformHolds([], platformDatabase: platform.databasePath)

        let lead = try await SignedInClient(serve, email: "lead@example.org")
        let found = try await lead.get("/review?review=received&q=" + ReviewQuery.percentEncoded(approved.placeName))
        #expect(found.body.contains("1 reports match") && found.body.contains(approved.placeName))
        #expect(!found.body.contains(rejected.placeName))
        let approve = try await ReviewTests.post(
            lead, "/review/reports/\(approved.id)/action", [("action", "approve")], tokenFrom: "/review")
        #expect(approve.status == 303)
        let reject = try await ReviewTests.post(
            lead, "/review/reports/\(rejected.id)/action",
            [("action", "reject"), ("reason", "not_heritage"), ("message", "A modern garage")], tokenFrom: "/review")
        #expect(reject.status == 303)
        try await waitUntil("the approved report is stored", timeout: 60) {
            try fixture.state(of: approved.localID).state == "stored"
        }
        try await Task.sleep(for: .seconds(2))
        #expect(try fixture.state(of: rejected.localID).state == "queued")
        // The reporter sees both decisions in their list.
        let list = try await browser.get("/reports")
        #expect(list.body.contains("Approved by a coordinator") && list.body.contains("Rejected by a coordinator"))
        #expect(list.body.contains("A modern garage") && list.body.contains("Not heritage"))
        await serve.stop()
        try checkPlatformHolds([approved], platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// REV-04, REV-03: under the policy `all`, a report asked for information gets a photo and a
    /// corrected name in its reporter's answer; while it waits the platform gets nothing (the worker
    /// runs); once approved the platform holds it once, under the corrected name, with every photo
    /// (the added one last), each once.
    @Test func rev04ReplyPhotoReachesThePlatformOnceWithTheApprovedReport() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (platform, fixture, serve, browser) = try await Self.started(in: folder, policy: "all")
        try await browser.submitReports(1, photos: 2, tag: "reply", into: fixture)
        var report = fixture.captured[0]
        let lead = try await SignedInClient(serve, email: "lead@example.org")
        let asked = try await ReviewTests.post(
            lead, "/review/reports/\(report.id)/action", [("action", "needs_info"), ("message", "And the porch?")],
            tokenFrom: "/review")
        #expect(asked.status == 303)

        let form = try await browser.get("/reports/\(report.localID)/reply")
        let token = try SignedInClient.csrf(in: form.body)
        let bytes = try browser.jpeg(label: "porch")
        let path = folder + "/porch.jpg"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let added = try await browser.post(
            "/api/reports/\(report.localID)/reply/photos",
            ["-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json", "-F", "photo=@\(path);type=image/jpeg"])
        #expect(added.status == 201, "\(added.body)")
        report.photoHashes.append(SHA256Stream.hash(bytes))
        report.placeName += " (porch)"
        let sent = try await browser.post(
            "/reports/\(report.localID)/reply",
            [
                "--data-urlencode", "_csrf=\(token)", "--data-urlencode", "name=\(report.placeName)",
                "--data-urlencode", "note=The porch is on the second photo",
            ])
        #expect(sent.status == 303)
        // The worker is running and polls every second: give it several chances to misbehave.
        try await Task.sleep(for: .seconds(3))
        #expect(try fixture.states() == ["queued": 1])
        try checkPlatformHolds([], platformDatabase: platform.databasePath)

        let approve = try await ReviewTests.post(
            lead, "/review/reports/\(report.id)/action", [("action", "approve")], tokenFrom: "/review")
        #expect(approve.status == 303)
        try await waitUntil("the approved report is stored", timeout: 60) {
            try fixture.state(of: report.localID).state == "stored"
        }
        try await Task.sleep(for: .seconds(2))
        await serve.stop()
        try checkPlatformHolds([report], platformDatabase: platform.databasePath)
        await platform.stop()
    }

    /// REV-03, REV-11 under the policy `none`: a report is sent at once and reviewed after; rejecting it
    /// once stored withdraws it from the platform (its soft delete there) after the undo window, and it
    /// stays in the review.
    @Test func rev03PolicyNoneRejectingAStoredReportWithdrawsIt() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (platform, fixture, serve, browser) = try await Self.started(in: folder, policy: "none")
        try await browser.submitReports(2, photos: 1, tag: "after", into: fixture)
        try await waitUntil("both reports are stored", timeout: 60) { try fixture.states() == ["stored": 2] }
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)
        let lead = try await SignedInClient(serve, email: "lead@example.org")
        let rejected = fixture.captured[1]
        let answer = try await ReviewTests.post(
            lead, "/review/reports/\(rejected.id)/action", [("action", "reject"), ("reason", "test")],
            tokenFrom: "/review")
        #expect(answer.status == 303)
        try await waitUntil("the rejected report is withdrawn", timeout: 60) {
            try fixture.state(of: rejected.localID).state == "withdrawn"
        }
        #expect(try await lead.get("/review/reports/\(rejected.id)").body.contains("withdrawn from the platform"))
        await serve.stop()
        try checkPlatformHolds([fixture.captured[0]], platformDatabase: platform.databasePath)
        await platform.stop()
    }
}
