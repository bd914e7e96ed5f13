import Foundation
import Testing

@testable import HeritageApp

/// What a shared tablet must not cost anyone else: receipt-code guesses limited per address (an IPv6
/// /64) and per network (a /24, a /48), never by a budget others' misses spend (KIO-07), a dead or planted kiosk cookie that locks no personal browser out, and a
/// volunteer who follows a link to /kiosk staying signed in (docs/KIOSK.md).
@Suite(.serialized) struct KioskHardeningTests {
    /// Receipt guesses as they reach the server behind a trusted proxy, from `address`.
    private func guess(_ client: HTTPClient, from address: String) async throws -> Int {
        try await client.curl("/r/\(Kiosks.newReceiptCode())", ["-H", "X-Forwarded-For: \(address)"]).status
    }

    @Test func kio07ReceiptGuessesCountPerIPv6Slash64AndPerNetwork() async throws {
        let server = try KioskTests.server(["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        let client = try HTTPClient(baseURL: server.baseURL)
        // A fresh address of one /64 for every guess: the /64 is limited as one client.
        var statuses: [Int] = []
        for host in 1...11 { statuses.append(try await guess(client, from: "2001:db8:1:2::\(host)")) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 404 } && statuses.last == 429, "\(statuses)")
        #expect(try await guess(client, from: "2001:db8:1:2:ffff:1:2:3") == 429)
        // Another /64 and an IPv4 client are other clients.
        #expect(try await guess(client, from: "2001:db8:1:3::1") == 404)
        #expect(try await guess(client, from: "198.51.100.7") == 404)
        // Many addresses of one IPv4 /24, each within its own ten: the network is limited as one client.
        var network: [Int] = []
        for host in 10..<70 { network.append(try await guess(client, from: "203.0.113.\(host)")) }
        #expect(network.filter { $0 == 404 }.count == 50 && network.last == 429, "\(network)")
        #expect(try await guess(client, from: "203.0.113.200") == 429, "a new address of that /24 waits too")
        await server.stop()
    }

    /// KIO-07: misses from many networks (each within its own budget) spend nobody else's: a visitor
    /// with a valid code from another network gets their receipt, while one address that keeps missing
    /// is answered 429.
    @Test func kio07OthersMissesNeverKeepAVisitorFromTheirReceipt() async throws {
        let server = try KioskTests.server(["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        #expect(try await KioskTests.fileVisit(tablet, name: "Guarded cross").status == 200)
        let code = try sqlite(server.dataDir, "SELECT code FROM kiosk_receipts")
        let client = try HTTPClient(baseURL: server.baseURL)
        for network in 0..<320 {
            _ = try await guess(client, from: "2001:db8:\(String(network, radix: 16))::1")
        }
        let visitor = try await client.curl("/r/\(code)", ["-H", "X-Forwarded-For: 192.0.2.44"])
        #expect(visitor.status == 200 && visitor.body.contains(code), "\(visitor.status)")
        var own: [Int] = []
        for _ in 0..<11 { own.append(try await guess(client, from: "192.0.2.99")) }
        #expect(own.last == 429, "\(own)")
        await server.stop()
    }

    @Test func theNetworkIsTheSlash24OrTheSlash48() {
        #expect(ReceiptScreen.networkPrefix("2001:db8:1:2::5") == "2001:db8:1::/48")
        #expect(ReceiptScreen.networkPrefix("203.0.113.9") == "203.0.113.0/24")
        #expect(ReceiptScreen.networkPrefix("::ffff:203.0.113.9") == "203.0.113.0/24")
        #expect(ReceiptScreen.networkPrefix("not an address") == "not an address")
    }

    @Test func theSlash64IsTheFirstFourGroups() {
        #expect(ReceiptScreen.clientPrefix("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(ReceiptScreen.clientPrefix("2001:DB8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(ReceiptScreen.clientPrefix("::ffff:203.0.113.9") == "203.0.113.9")
        #expect(ReceiptScreen.clientPrefix("203.0.113.9") == "203.0.113.9")
        #expect(ReceiptScreen.clientPrefix("not an address") == "not an address")
    }

    @Test func aDeadOrPlantedKioskCookieLocksNoPersonalBrowserOut() async throws {
        let server = try KioskTests.server()
        let volunteer = try await SignedInClient(server)
        volunteer.http.setCookie("har_kiosk", String(repeating: "ab", count: 32))
        let list = try await volunteer.get("/reports")
        #expect(list.status == 200, "\(list.status) \(list.body.prefix(200))")
        #expect(volunteer.http.cookie("har_kiosk") == nil, "the dead credential is cleared")
        #expect(try await volunteer.get("/settings").status == 200)
        // A signed-out browser with one is simply signed out: the sign-in page, no 403.
        let anonymous = try HTTPClient(baseURL: server.baseURL)
        anonymous.setCookie("har_kiosk", "planted")
        let signIn = try await anonymous.curl("/signin", [])
        #expect(signIn.status == 200 && signIn.body.contains("name=\"password\""))
        await server.stop()
    }

    @Test func aVolunteerWhoOpensTheKioskPageStaysSignedIn() async throws {
        let server = try KioskTests.server()
        let volunteer = try await SignedInClient(server)
        let session = try #require(volunteer.http.cookie("har_session"))
        let kiosk = try await volunteer.get("/kiosk")
        #expect(kiosk.status == 403 && kiosk.body.contains("This tablet is not enrolled"))
        #expect(volunteer.http.cookie("har_session") == session, "the session cookie is left alone")
        let list = try await volunteer.get("/reports")
        #expect(list.status == 200, "still signed in: \(list.status)")
        await server.stop()
    }
}
