import Foundation
import PlatformClient
import Testing

@testable import HeritageApp

extension KioskTests {
    /// Off the network: the shell in each of the kiosk's languages (`/kiosk/offline?lang=`, a
    /// language the kiosk lacks ignored), naming them for the service worker; the server's photo and form
    /// screens carry the visit's id (the tablet holds the visit's photos under it), and a visit discarded
    /// before the tablet could send it is made again under that id and stored once.
    @Test func kio03OfflineShellPerLanguageAndHeldVisitUnderItsID() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
        let french = try await tablet.curl("/kiosk/offline?lang=fr", [])
        #expect(french.status == 200 && french.body.contains(#"<html lang="fr">"#))
        #expect(french.body.contains(#"data-shell-languages="en,fr""#))
        #expect(french.body.contains(#"<script type="module" src="/static/js/kiosk/main.js"#), "the kiosk's module")
        // The kiosk's worker starts as the volunteer's: the same static files' list (kiosk/main.js in it).
        let prologue = try #require(try await tablet.curl("/kiosk/sw.js", []).body.split(separator: "\n").first)
        #expect(prologue.contains("\"/static/js/kiosk/main.js\"") && prologue.contains("self.HAR_ASSETS = ["))
        #expect(try await tablet.curl("/sw.js", []).body.hasPrefix(prologue + "\n"), "one list for both workers")
        let unknown = try await tablet.curl("/kiosk/offline?lang=xx", [])
        #expect(unknown.status == 200 && unknown.body.contains(#"<html lang="en">"#))
        let start = try await Self.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk")
        #expect(start.status == 303)
        let photos = try await tablet.curl("/kiosk/photos", [])
        let visit = try #require(Self.first(#"data-visit="[0-9a-f-]{36}""#, in: photos.body))
            .dropFirst(#"data-visit=""#.count).dropLast()
        #expect(try await tablet.curl("/kiosk/form", []).body.contains(#"data-visit="\#(visit)""#))
        // The attract screen discards the visit; the tablet then sends what it held under the visit's id.
        #expect(try await tablet.curl("/kiosk", []).status == 200)
        let session = try await tablet.curl("/kiosk/device/session", ["-H", "Accept: application/json"])
        let csrf = try #require(Self.first(#"[0-9a-f]{64}"#, in: session.body))
        let headers = ["-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json"]
        let opened = try await tablet.curl("/kiosk/device/reports/\(visit)", headers + ["-X", "POST"])
        #expect(opened.status == 200 && opened.body.contains("\"state\":\"draft\""), "\(opened.body)")
        let image = try TestImages.jpeg()
        let uploaded = try await tablet.curl(
            "/kiosk/device/reports/\(visit)/photos",
            headers + ["-F", "photo=@\(image);type=image/jpeg", "-F", "photo_id=\(UUID().uuidString.lowercased())"])
        #expect([200, 201].contains(uploaded.status), "\(uploaded.status)")
        let fields = [
            "name=Held+visit", "designation=LB", "condition=poor", "occupancy=vacant", "priority_category=A",
            "owner_type=private", "grade=II", "submit_token=\(String(repeating: "cd", count: 32))",
        ].joined(separator: "&")
        let submitted = try await tablet.curl("/kiosk/device/reports/\(visit)/submit", headers + ["--data", fields])
        #expect(submitted.status == 200 && submitted.body.contains("submitted"))
        #expect(
            try sqlite(server.dataDir, "SELECT count(*) || ',' || min(origin) FROM reports WHERE name = 'Held visit'")
                == "1,kiosk")
        await server.stop()
    }

    /// KIO-06: the receipt's public status, no location before approval; the claim with the secret, once;
    /// the claimed report in the visitor's list; expiry; guesses limited.
    @Test func kio06ReceiptStatusClaimExpiryAndGuesses() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        _ = try await Self.enrolledTablet(server, coordinator)
        let kioskID = try #require(Int64(try sqlite(server.dataDir, "SELECT id FROM kiosks")))
        let kiosks = server.application.stores.kiosks
        let now = Date().timeIntervalSince1970
        let visit = try #require(
            try kiosks.startVisit(kioskID: kioskID, localID: UUID().uuidString.lowercased(), now: now).draft)
        _ = try server.application.stores.drafts.addPhoto(
            NewPhoto(
                localID: UUID().uuidString.lowercased(), contentType: "image/jpeg", size: 1, sha256: "ab", width: 1,
                height: 1, fix: PhotoFix(latitude: 51.6, longitude: -0.2, accuracy: 5),
                capturedAt: "2026-05-01T10:00:00Z"),
            to: visit, now: now)
        _ = try server.application.stores.drafts.submit(
            draftLocalID: visit.localID, userID: visit.userID,
            fields: ReportFields(
                name: "Fallen stone", designation: "LB", condition: "poor", occupancy: "vacant", priorityCategory: "A",
                ownerType: "private", grade: "II"), token: UUID().uuidString, now: now)
        let secret = WebSessions.newToken()
        let reportID = try #require(try server.application.stores.outbox.reportID(localID: visit.localID))
        #expect(
            try kiosks.recordSubmission(
                kioskID: kioskID, reportID: reportID,
                receipt: NewReceipt(
                    code: "K7Q4-M2XD", secretHash: try #require(WebSessions.hash(token: secret)), expiresAt: now + 3600,
                    usedSiteLocation: false), now: now))
        let anonymous = try HTTPClient(baseURL: server.baseURL)
        let status = try await anonymous.curl("/r/k7q4m2xd", [])
        #expect(status.status == 200 && status.body.contains("Received: waiting for review"))
        #expect(!status.body.contains("51.6"), "no location before approval")
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        #expect(try server.application.stores.review.decide(approve, id: reportID, actor: "c", now: now) == .done)
        let approved = try await anonymous.curl("/r/K7Q4-M2XD", [])
        #expect(approved.body.contains("Accepted, being sent") && approved.body.contains("51.6"))

        let visitor = try await SignedInClient(server)
        let wrong = try await Self.post(
            visitor.http, "/r/K7Q4-M2XD/claim", [("secret", WebSessions.newToken())], tokenFrom: "/reports")
        #expect(wrong.status == 403)
        let claimed = try await Self.post(
            visitor.http, "/r/K7Q4-M2XD/claim", [("secret", secret)], tokenFrom: "/reports")
        #expect(claimed.status == 303)
        let list = try await visitor.get("/reports")
        #expect(list.body.contains("Reports from kiosks") && list.body.contains("Fallen stone"))
        // The claimed report's later state changes move the claimant's list ETag: no stale 304.
        let etag = try #require(list.headers["etag"])
        #expect(try await visitor.http.curl("/reports", ["-H", "If-None-Match: \(etag)"]).status == 304)
        #expect(try server.application.stores.outbox.beginCreate(reportID))
        let moved = try await visitor.http.curl("/reports", ["-H", "If-None-Match: \(etag)"])
        #expect(moved.status == 200 && moved.headers["etag"] != etag, "the upload's start shows in the claimant's list")
        let other = try await SignedInClient(server)
        let taken = try await Self.post(other.http, "/r/K7Q4-M2XD/claim", [("secret", secret)], tokenFrom: "/reports")
        #expect(taken.status == 409, "single use")
        // Expiry.
        try sqlite(server.dataDir, "UPDATE kiosk_receipts SET claimed_by = NULL, expires_at = 1")
        let expired = try await Self.post(other.http, "/r/K7Q4-M2XD/claim", [("secret", secret)], tokenFrom: "/reports")
        #expect(expired.status == 410)
        // Guesses: ten failures from an address (the wrong secret above is one) are answered, then it waits.
        let guesser = try HTTPClient(baseURL: server.baseURL)
        var statuses: [Int] = []
        for _ in 0..<12 { statuses.append(try await guesser.curl("/r/\(Kiosks.newReceiptCode())", []).status) }
        #expect(statuses.prefix(9).allSatisfy { $0 == 404 } && statuses.last == 429, "\(statuses)")
        let limited = try await guesser.curl("/r/K7Q4-M2XD", [])
        #expect(limited.status == 429, "even the right code waits")
        await server.stop()
    }
}
