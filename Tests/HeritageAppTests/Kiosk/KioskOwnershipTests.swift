import Foundation
import Testing

@testable import HeritageApp

/// REV-12 (KIO-05): a kiosk's reports are the kiosk's, not the linked coordinator's.
@Suite(.serialized) struct KioskOwnershipTests {
    /// A visitor files one report on a freshly enrolled tablet; its local id and its photo's.
    /// On `enrolled` when given, else on a new kiosk the coordinator makes.
    static func fileKioskReport(
        _ server: RunningServer, _ coordinator: SignedInClient, name: String, on enrolled: HTTPClient? = nil
    ) async throws -> (tablet: HTTPClient, localID: String, photo: String) {
        let tablet: HTTPClient
        if let enrolled {
            tablet = enrolled
        } else {
            tablet = try await KioskTests.enrolledTablet(server, coordinator).tablet
        }
        let receipt = try await KioskTests.fileVisit(tablet, name: name)
        #expect(receipt.status == 200)
        let localID = try sqlite(server.dataDir, "SELECT local_id FROM reports WHERE name = '\(name)'")
        let photo = try sqlite(
            server.dataDir,
            "SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.name = '\(name)'")
        return (tablet, localID, photo)
    }

    /// REV-12: the linking coordinator's list, delete, photo and reply routes do not reach a kiosk's
    /// report; it stays on /review. A coordinator who loses the role stops being the kiosk's account:
    /// the kiosk is not ready and /review/kiosks says why.
    @Test func rev12KioskReportsAreNobodysPersonalReports() async throws {
        let server = try KioskTests.server()
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let (tablet, localID, photo) = try await Self.fileKioskReport(server, coordinator, name: "Kiosk lintel")
        let owner = try sqlite(
            server.dataDir,
            "SELECT u.email FROM reports r JOIN users u ON u.id = r.user_id WHERE r.local_id = '\(localID)'")
        #expect(owner.hasPrefix("kiosk:"), "the kiosk's own user, not \(owner)")

        #expect(try await !coordinator.get("/reports").body.contains("Kiosk lintel"), "not in a person's list")
        let delete = try await ReviewTests.post(coordinator, "/reports/\(localID)/delete", [])
        #expect(delete.status != 303 || !(delete.headers["location"] ?? "").isEmpty)
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = '\(localID)'") == "queued")
        #expect(try await coordinator.get("/photos/\(photo)").status == 404, "not the coordinator's photo")
        #expect(try await coordinator.get("/reports/\(localID)/reply").status == 404)
        #expect(try await coordinator.get("/review").body.contains("Kiosk lintel"), "on the review")
        #expect(try await coordinator.get("/review/photos/\(photo)").status == 200)

        // The coordinator loses the role: the kiosk is not ready, and the kiosks' page says why.
        let admin = "admin.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let lead = try await SignedInClient(server, email: admin)
        try await ReviewTests.grantConfirmed(server.dataDir, admin, .admin)
        try sqlite(server.dataDir, "DELETE FROM user_roles WHERE email = '\(KioskTests.coordinator)'")
        let start = try await KioskTests.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk")
        #expect(start.status == 503, "not ready")
        #expect(try await lead.get("/review/kiosks").body.contains("no longer a coordinator"))
        await server.stop()
    }

    /// REV-06 (item 7): the review serves photos of reports on the review only: not of a draft, not of a
    /// kiosk visit still in progress.
    @Test func rev06ReviewPhotosOnlyOfReviewableReports() async throws {
        let server = try KioskTests.server()
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        _ = try await KioskTests.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk")
        let photos = try await tablet.curl("/kiosk/photos", [])
        let token = try SignedInClient.csrf(in: photos.body)
        let upload = try await tablet.curl(
            "/kiosk/photos",
            [
                "-X", "POST", "-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json", "-F",
                "photo=@\(try TestImages.jpeg());type=image/jpeg",
            ])
        #expect(upload.status == 201)
        let inProgress = try sqlite(
            server.dataDir,
            "SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.state = 'draft'")
        #expect(!inProgress.isEmpty)
        #expect(try await coordinator.get("/review/photos/\(inProgress)").status == 404, "a visit in progress")
        #expect(try await coordinator.get("/review/photos/\(inProgress)/thumb").status == 404)
        await server.stop()
    }

    /// REV-08 (item 6): a kiosk's submission, its receipt and its audit row are one transaction: when the
    /// audit row cannot be written, nothing is queued (the visitor can send it again).
    @Test func rev08KioskSubmitAndItsAuditRowTogether() async throws {
        let server = try KioskTests.server()
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        try sqlite(
            server.dataDir,
            """
            CREATE TRIGGER refuse_kiosk_audit BEFORE INSERT ON review_audit WHEN NEW.action = 'kiosk_submit'
            BEGIN SELECT RAISE(ABORT, 'audit refused'); END
            """)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        _ = try await KioskTests.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk")
        let photos = try await tablet.curl("/kiosk/photos", [])
        let token = try SignedInClient.csrf(in: photos.body)
        _ = try await tablet.curl(
            "/kiosk/photos",
            [
                "-X", "POST", "-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json", "-F",
                "photo=@\(try TestImages.jpeg());type=image/jpeg",
            ])
        let form = try await tablet.curl("/kiosk/form", [])
        let submitToken = try #require(KioskTests.first(#"name="submit_token" value="[0-9a-f]{64}""#, in: form.body))
            .dropFirst(#"name="submit_token" value=""#.count).dropLast()
        let fields: [(String, String)] = [
            ("submit_token", String(submitToken)), ("name", "Unaudited"), ("designation", "LB"), ("condition", "poor"),
            ("occupancy", "vacant"), ("priority_category", "A"), ("owner_type", "private"), ("grade", "II"),
        ]
        let refused = try await KioskTests.post(tablet, "/kiosk/submit", fields, tokenFrom: "/kiosk/form")
        #expect(refused.status >= 500)
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE state = 'queued'") == "0")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM kiosk_receipts") == "0")
        await server.stop()
    }
}
