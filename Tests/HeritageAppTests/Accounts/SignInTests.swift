import Foundation
import Testing

/// Sign-in without JavaScript, sessions and their cookie, rate limits, hostile input (real har serve).
@Suite struct SignInTests {
    @Test func emptyAndBadFieldsGetTheBrowsersMessages() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let token = try await client.csrf()
        let empty = try await client.post("/signin", [("_csrf", token), ("email", "   "), ("password", "")])
        #expect(empty.status == 422)
        #expect(empty.body.contains("The e-mail address cannot be left empty."))
        #expect(empty.body.contains("The password cannot be left empty."))
        let bad = try await client.post(
            "/signin", [("_csrf", token), ("email", " not an address "), ("password", "x")])
        #expect(bad.body.contains("This is not a valid e-mail address."))
        #expect(bad.body.contains(#"value="not an address""#))  // trimmed, re-shown
        #expect(!bad.body.contains(#"value="x""#))  // the password is never echoed
    }

    @Test func wrongPasswordIsAClearMessageAndSuccessSetsTheCookie() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let email = uniqueEmail()
        let first = try await client.signIn(email, "first password")
        #expect(first.status == 303)
        #expect(first.headers["location"] == "/reports")
        let setCookie = first.headers["set-cookie"] ?? ""
        #expect(setCookie.hasPrefix("har_session="))
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Lax"))
        #expect(setCookie.contains("Max-Age="))
        #expect(!setCookie.contains("Secure"))  // plain HTTP on loopback
        let token = client.cookie("har_session") ?? ""
        #expect(token.count == 64)
        // Only its SHA-256 is stored.
        #expect(
            try sqlite(server.dataDir, "SELECT COUNT(*) FROM web_sessions WHERE hex(token_hash) = upper('\(token)')")
                == "0")
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM web_sessions") == "1")
        let list = try await client.get("/reports")
        #expect(list.status == 200)
        #expect(list.body.contains("report-list"))

        let other = try WebClient(server)
        let wrong = try await other.signIn(email, "second password")
        #expect(wrong.status == 401)
        #expect(wrong.body.contains("Wrong password for this e-mail address."))
        #expect(!wrong.body.contains("AuthenticationFailureException"))
        #expect(other.cookie("har_session") == nil)
    }

    /// The platform refuses a new account's password under 8 characters; the page says
    /// the rule beforehand and next to the field when the platform answers with it.
    @Test func aNewAccountNeedsEightCharacters() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let page = try await client.get("/signin")
        #expect(page.body.contains("its password needs at least 8 characters"))
        let email = uniqueEmail()
        let short = try await client.signIn(email, "7 chars")
        #expect(short.status == 422)
        #expect(short.body.contains("A new account needs a password of at least 8 characters."))
        #expect(!short.body.contains("InvalidArgumentException"))
        #expect(!short.body.contains("7 chars"))
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM users") == "0")
        #expect(try await client.signIn(email, "8 chars!").status == 303)
    }

    @Test func signInRotatesTheCookieAndSignOutEndsIt() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let planted = String(repeating: "ab", count: 32)
        try client.setCookie("har_session", planted)
        _ = try await client.signIn(uniqueEmail())
        let first = client.cookie("har_session")
        #expect(first != nil && first != planted)
        _ = try await client.get("/signout")  // GET changes nothing
        #expect(try await client.get("/reports").status == 200)
        // Signing in again (another account) drops the first session.
        let again = try await client.post(
            "/signin",
            [
                ("_csrf", try await client.csrf(from: "/settings")), ("email", uniqueEmail()),
                ("password", "long enough"),
            ])
        #expect(again.status == 303)
        let second = client.cookie("har_session")
        #expect(second != first)
        let stale = try WebClient(server)
        try stale.setCookie("har_session", first ?? "")
        #expect(try await stale.get("/reports").headers["location"] == "/signin")

        let out = try await client.post("/signout", [("_csrf", try await client.csrf(from: "/settings"))])
        #expect(out.status == 303)
        #expect(out.headers["location"] == "/signin?notice=signedOut")
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let replay = try WebClient(server)
        try replay.setCookie("har_session", second ?? "")
        #expect(try await replay.get("/reports").headers["location"] == "/signin")
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM web_sessions") == "0")
    }

    @Test func signInSurvivesAServerRestart() async throws {
        let dataDir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let first = try RunningServer(environment: ["HAR_DATA_DIR": dataDir])
        let client = try WebClient(first)
        _ = try await client.signIn(uniqueEmail())
        await first.stop()
        let second = try RunningServer(environment: ["HAR_DATA_DIR": dataDir])
        let again = try WebClient(second)
        try again.setCookie("har_session", client.cookie("har_session") ?? "")
        let list = try await again.get("/reports")
        #expect(list.status == 200)
        #expect(list.body.contains("report-list"))
    }

    @Test func signInIsRateLimitedPerEmailAndPerAddress() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email, "the right one")
        let stranger = try WebClient(server)
        var statuses: [Int] = []
        for _ in 0..<10 { statuses.append(try await stranger.signIn(email, "guess").status) }
        // Five free failures for one e-mail from one address, then a delay (SignInLimitTests has more).
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 })
        #expect(statuses.dropFirst(5).allSatisfy { $0 == 429 })
        let limited = try await stranger.signIn(email, "the right one")
        #expect(limited.status == 429)
        #expect(limited.body.contains("Too many sign-in attempts. Please wait a few minutes and try again."))
        #expect((1...15).contains(Int(limited.headers["retry-after"] ?? "") ?? 0))
    }

    @Test func hostileInputGetsClearMessages() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let token = try await client.csrf()
        let long = String(repeating: "a", count: 10_000) + "@example.org"
        let tooLong = try await client.post("/signin", [("_csrf", token), ("email", long), ("password", "x")])
        #expect(tooLong.status == 422)
        #expect(tooLong.body.contains("This e-mail address is too long."))
        #expect(!tooLong.body.contains(String(repeating: "a", count: 1000)))
        let control = try await client.post(
            "/signin", [("_csrf", token), ("email", "a\u{1}b@example.org\r\nX: y"), ("password", "x")])
        #expect(control.body.contains("This is not a valid e-mail address."))
        let longPassword = try await client.post(
            "/signin",
            [("_csrf", token), ("email", "a@example.org"), ("password", String(repeating: "p", count: 5000))])
        #expect(longPassword.body.contains("This password is too long."))
        let bodyFile = try TestPaths.temporaryFile(
            contents: "_csrf=\(token)&email=" + String(repeating: "x", count: 200_000), name: "body")
        let huge = try await client.post("/signin", [], ["--data-binary", "@" + bodyFile])
        #expect(huge.status == 413)
        #expect(huge.body.contains("Too large"))
        let unicode = try await client.post(
            "/signin", [("_csrf", token), ("email", "josé@example.org"), ("password", "x")])
        #expect(unicode.body.contains("This is not a valid e-mail address."))
    }

    @Test func frenchFromAcceptLanguage() async throws {
        let server = try RunningServer()
        let page = try await curl(server.baseURL + "/signin", ["-H", "Accept-Language: fr-CA,fr;q=0.9,en;q=0.5"])
        #expect(page.body.contains(#"<html lang="fr">"#))
        #expect(page.body.contains(#"placeholder="Adresse e-mail""#))
        let english = try await curl(server.baseURL + "/signin", ["-H", "Accept-Language: de, en;q=0.1"])
        #expect(english.body.contains(#"<html lang="en">"#))
    }
}

/// A slow platform or TLS: what the sign-in page and its cookie become.
@Suite struct SignInConditionsTests {
    @Test func aSlowPlatformGetsAClearMessageBeforeTheHandlerDeadline() async throws {
        let server = try RunningServer(environment: [
            "HAR_HANDLER_DEADLINE_SECONDS": "6", "HAR_PLATFORM_FAULTS": "latency_ms=9000,seed=1",
        ])
        let client = try WebClient(server)
        let page = try await client.signIn(uniqueEmail())
        // The sign-in's own answer, not the handler deadline's generic "Busy" page: it came first.
        // (No clock here: a loaded machine may be slow, the order of the two answers is what counts.)
        #expect(page.status == 503)
        #expect(!page.body.contains("The server is busy or stopping."))
        #expect(page.body.contains("The Heritage Observatory platform cannot be reached."))
    }

    @Test func underTLSTheCookieIsSecureWithTheHostPrefix() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem",
            "-out", folder + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        let server = try RunningServer(environment: [
            "HAR_TLS_CERT": folder + "/cert.pem", "HAR_TLS_KEY": folder + "/key.pem",
        ])
        let base = "https://127.0.0.1:\(server.port)"
        let jar = folder + "/jar"
        let page = try await curl(base + "/signin", ["-k", "-c", jar])
        #expect(page.headers["set-cookie"]?.hasPrefix("__Host-har_csrf=") == true)
        #expect(page.headers["set-cookie"]?.contains("Secure") == true)
        guard let range = page.body.range(of: #"name="_csrf" value="[0-9a-f]+""#, options: .regularExpression) else {
            Issue.record("no token")
            return
        }
        let token = String(page.body[range].dropFirst(#"name="_csrf" value=""#.count).dropLast())
        let signedIn = try await curl(
            base + "/signin",
            [
                "-k", "-b", jar, "-c", jar, "--data-urlencode", "_csrf=\(token)",
                "--data-urlencode", "email=\(uniqueEmail())", "--data-urlencode", "password=long enough",
            ])
        #expect(signedIn.status == 303)
        let cookie = signedIn.headers["set-cookie"] ?? ""
        #expect(cookie.hasPrefix("__Host-har_session="))
        #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
        #expect(cookie.contains("Path=/") && !cookie.contains("Domain"))
        #expect(try await curl(base + "/reports", ["-k", "-b", jar]).status == 200)
    }

    /// Behind a proxy that terminates TLS, `cookie_secure` gives the same cookies over the proxy's plain leg.
    @Test func cookieSecureMarksCookiesWithoutTLS() async throws {
        let server = try RunningServer(environment: ["HAR_COOKIE_SECURE": "true"])
        let page = try await curl(server.baseURL + "/signin")
        let cookie = page.headers["set-cookie"] ?? ""
        #expect(cookie.hasPrefix("__Host-har_csrf="))
        #expect(cookie.contains("Secure") && cookie.contains("HttpOnly"))
    }
}
