import Foundation
import Testing

@testable import HeritageApp

/// CSRF on every state-changing route, the end of a platform session, the no-JS list and settings.
@Suite struct WebSecurityTests {
    @Test func everyStateChangingRouteRefusesAMissingOrWrongToken() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        let email = try sqlite(server.dataDir, "SELECT email FROM users")
        // Held: the upload worker leaves it alone, so only a request that slipped past CSRF could change it.
        let localID = try seedReport(server, email: email, state: "held")
        let routes = [
            "/signin", "/lang", "/signout", "/settings", "/api/reports/refresh", "/reports/\(localID)/delete",
        ]
        for route in routes {
            let missing = try await client.post(route, [("lang", "fr"), ("gps_accuracy_m", "5")])
            #expect(missing.status == 403, "\(route) without a token")
            let wrong = try await client.post(route, [("_csrf", String(repeating: "0", count: 64)), ("lang", "fr")])
            #expect(wrong.status == 403, "\(route) with a wrong token")
            let header = try await client.postJSON(route, "{}", csrf: "nope")
            #expect(header.status == 403, "\(route) with a wrong header")
        }
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = '\(localID)'") == "held")
        #expect(try await client.get("/reports").status == 200)  // still signed in
        // An anonymous form token is no good once signed in, and vice versa.
        let anonymous = try WebClient(server)
        let anonymousToken = try await anonymous.csrf()
        #expect(try await client.post("/settings", [("_csrf", anonymousToken)]).status == 403)
        #expect(
            try await client.postJSON("/api/reports/refresh", "{}", csrf: try await client.csrf(from: "/settings"))
                .status == 200)
    }

    @Test func anExpiredPlatformSessionSignsOutAndKeepsQueuedReports() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        let email = try sqlite(server.dataDir, "SELECT email FROM users")
        let queued = try seedReport(server, email: email, state: "queued")
        let token = try await client.csrf(from: "/settings")
        // The platform forgets the session (as after its expiry) while ours still looks alive.
        try sqlite(server.dataDir, "UPDATE users SET platform_session_id = 'ffffffffffffffffffffffffffffffff'")
        let refresh = try await client.postJSON("/api/reports/refresh", "{}", csrf: token)
        #expect(refresh.status == 401)
        #expect(refresh.body.contains(#""error":"signed_out""#))
        #expect(refresh.body.contains(#""redirect":"/signin?notice=expired""#))
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM web_sessions") == "0")
        #expect(try sqlite(server.dataDir, "SELECT platform_session_id IS NULL FROM users") == "1")
        // Kept: still in the outbox (the worker may have moved it on, e.g. to waiting for sign-in).
        #expect(
            try sqlite(
                server.dataDir, "SELECT state NOT IN ('cancelled', 'deleted') FROM reports WHERE local_id = '\(queued)'"
            )
                == "1")
        let page = try await client.get("/reports")
        #expect(page.headers["location"] == "/signin")
        let notice = try await client.get("/signin?notice=expired")
        #expect(notice.body.contains("Your session has ended. Please sign in again"))
    }

    @Test func aSessionEndsWhenThePlatformSessionExpires() async throws {
        let server = try RunningServer(environment: ["HAR_PLATFORM_SESSION_TTL": "2"])
        let client = try WebClient(server)
        let signIn = try await client.signIn(uniqueEmail())
        let maxAge = signIn.headers["set-cookie"]?.firstMatch(of: /Max-Age=(\d+)/).map { Int($0.1) ?? 0 } ?? 0
        #expect(maxAge >= 1 && maxAge <= 60)
        #expect(try await client.get("/reports").status == 200)
        try await waitUntil("the platform session's end signs the user out", timeout: 15, interval: 0.25) {
            try await client.get("/reports").headers["location"] == "/signin"
        }
    }

    @Test func listAndSettingsWorkWithoutJavaScript() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        let email = try sqlite(server.dataDir, "SELECT email FROM users")
        let localID = try seedReport(server, email: email, state: "held")
        let token = try await client.csrf(from: "/settings")
        let page = try await client.get("/reports")
        #expect(
            page.body.contains(
                "Kept <b>here</b>".replacingOccurrences(of: "<", with: "&lt;")
                    .replacingOccurrences(of: ">", with: "&gt;")))
        #expect(page.headers["cache-control"] == "private, no-cache")  // revalidated every time
        let deleted = try await client.post("/reports/\(localID)/delete", [("_csrf", token)])
        #expect(deleted.status == 303)
        #expect(deleted.headers["location"] == "/reports?deleted=1")
        #expect(try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = '\(localID)'") == "cancelled")
        #expect(try await client.post("/reports/not-a-report/delete", [("_csrf", token)]).status == 404)

        let saved = try await client.post(
            "/settings",
            [
                ("_csrf", token), ("gps_accuracy_m", "50"), ("gps_alert_seconds", "90"),
                ("wireless_only", "on"),
            ])
        #expect(saved.headers["location"] == "/settings?saved=1")
        #expect(
            try sqlite(server.dataDir, "SELECT gps_accuracy_m, gps_alert_seconds, wireless_only FROM users")
                == "50|90|1")
        let bad = try await client.post(
            "/settings", [("_csrf", token), ("gps_accuracy_m", "0"), ("gps_alert_seconds", "99999")])
        #expect(bad.status == 422)
        #expect(bad.body.contains("from 1 to 1000"))
        #expect(bad.body.contains("from 5 to 3600"))
        #expect(bad.body.contains(#"value="99999""#))
        let json = try await client.postJSON(
            "/settings", #"{"gpsAccuracyMetres":"x","gpsAlertSeconds":null}"#, csrf: token)
        #expect(json.status == 422)
        #expect(json.body.contains(#""fields""#))
        #expect(try sqlite(server.dataDir, "SELECT gps_accuracy_m FROM users") == "50")
        let ok = try await client.postJSON(
            "/settings", #"{"gpsAccuracyMetres":7,"gpsAlertSeconds":30,"wirelessOnly":false}"#,
            csrf: token)
        #expect(ok.status == 200)
        #expect(
            try sqlite(server.dataDir, "SELECT gps_accuracy_m, gps_alert_seconds, wireless_only FROM users") == "7|30|0"
        )
    }

    @Test func signedOutFetchGetsJSONAndPagesRedirect() async throws {
        let server = try RunningServer()
        let api = try await curl(server.baseURL + "/api/reports", ["-H", "Accept: application/json"])
        #expect(api.status == 401)
        #expect(api.headers["content-type"] == "application/json")
        let page = try await curl(server.baseURL + "/settings")
        #expect(page.status == 303)
        #expect(page.headers["location"] == "/signin")
        #expect(try await curl(server.baseURL + "/").headers["location"] == "/signin")
    }

    @Test func addrSpecAgreesWithTheSharedCases() throws {
        let data = try Data(
            contentsOf: URL(fileURLWithPath: TestPaths.packageRoot + "/Tests/browser/addr_spec_cases.json"))
        struct Case: Decodable {
            var address: String
            var valid: Bool
        }
        let cases = try JSONDecoder().decode([Case].self, from: data)
        #expect(cases.count > 40)
        for item in cases {
            #expect(AddressSpec.isValid(item.address) == item.valid, "\(item.address.debugDescription)")
        }
    }

}
