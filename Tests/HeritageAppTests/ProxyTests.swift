import Foundation
import Testing

/// Issue 9, item 3 (part): behind a reverse proxy, the client address comes from the trusted proxy's
/// forwarding fields, and /metrics answers only to direct loopback connections (real `har serve`).
@Suite struct ProxyTests {
    private func status(_ server: RunningServer, _ path: String, _ headers: [String] = []) throws -> Int {
        var arguments = ["-s", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}"]
        for header in headers { arguments += ["-H", header] }
        return Int(try runProgram("/usr/bin/curl", arguments + [server.baseURL + path]).output) ?? 0
    }

    @Test func theAccessLogShowsTheClientOnlyWhenTheProxyIsTrusted() throws {
        let trusting = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        _ = try status(trusting, "/healthz?a", ["X-Forwarded-For: 198.51.100.1, 203.0.113.9"])
        _ = try status(trusting, "/healthz?b", ["Forwarded: for=\"[2001:db8::7]:5000\""])
        _ = trusting.stop()
        let lines = trusting.accessLog().split(separator: "\n").filter { $0.contains("GET /healthz") }
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(" 203.0.113.9") == true, "\(lines)")
        #expect(lines.last?.hasSuffix(" 2001:db8::7") == true, "\(lines)")

        let plain = try RunningServer()
        _ = try status(plain, "/healthz", ["X-Forwarded-For: 203.0.113.9"])
        _ = plain.stop()
        #expect(plain.accessLog().contains("GET /healthz 200"))
        #expect(!plain.accessLog().contains("203.0.113.9"))
    }

    @Test func metricsAnswerOnlyDirectLoopbackConnectionsWhateverTheSpelling() throws {
        let server = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        defer { _ = server.stop() }
        #expect(try status(server, "/metrics") == 200)
        for spelling in ["/metrics", "/metrics/", "//metrics", "/%6detrics", "/./metrics", "/static/../metrics"] {
            for field in ["X-Forwarded-For: 127.0.0.1", "Forwarded: for=127.0.0.1", "X-Forwarded-For: 203.0.113.9"] {
                let answer = try status(server, spelling, [field])
                #expect(answer != 200, "\(spelling) with \(field): \(answer)")
            }
        }
    }

    @Test func signInLimitsCountPerClientBehindTheProxy() throws {
        let server = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        defer { _ = server.stop() }
        func signIn(from client: String) throws -> Int {
            let browser = try WebClient(server)
            let fields = [("_csrf", try browser.csrf()), ("email", uniqueEmail()), ("password", "long enough")]
            return try browser.post("/signin", fields, ["-H", "X-Forwarded-For: \(client)"]).status
        }
        // Today's limit: 10 attempts per 5 minutes per client address.
        for _ in 0..<10 { #expect(try signIn(from: "203.0.113.1") == 303) }
        #expect(try signIn(from: "203.0.113.1") == 429)
        // Another client behind the same proxy has a bucket of its own.
        #expect(try signIn(from: "203.0.113.2") == 303)
    }
}
