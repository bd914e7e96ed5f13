import Foundation
import Testing

/// Behind a reverse proxy, the client address comes from the trusted proxy's
/// forwarding fields, and /metrics answers only to direct loopback connections (real `har serve`).
@Suite struct ProxyTests {
    /// The status of one request by curl (which sends a path exactly as written with --path-as-is).
    private func status(_ server: some ServerUnderTest, _ path: String, _ headers: [String] = []) async throws -> Int {
        var arguments = ["-s", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}"]
        for header in headers { arguments += ["-H", header] }
        return Int(try await runProgram("/usr/bin/curl", arguments + [server.baseURL + path]).stdout) ?? 0
    }

    @Test func theAccessLogShowsTheClientOnlyWhenTheProxyIsTrusted() async throws {
        let trusting = try await ServeProcess(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        _ = try await status(trusting, "/healthz?a", ["X-Forwarded-For: 198.51.100.1, 203.0.113.9"])
        _ = try await status(trusting, "/healthz?b", ["Forwarded: for=\"[2001:db8::7]:5000\""])
        _ = await trusting.stop()
        let lines = trusting.accessLog().split(separator: "\n").filter { $0.contains("GET /healthz") }
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(" 203.0.113.9") == true, "\(lines)")
        #expect(lines.last?.hasSuffix(" 2001:db8::7") == true, "\(lines)")

        let plain = try await ServeProcess()
        _ = try await status(plain, "/healthz", ["X-Forwarded-For: 203.0.113.9"])
        _ = await plain.stop()
        #expect(plain.accessLog().contains("GET /healthz 200"))
        #expect(!plain.accessLog().contains("203.0.113.9"))
    }

    @Test func metricsAnswerOnlyDirectLoopbackConnectionsWhateverTheSpelling() async throws {
        let server = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        #expect(try await status(server, "/metrics") == 200)
        for spelling in ["/metrics", "/metrics/", "//metrics", "/%6detrics", "/./metrics", "/static/../metrics"] {
            for field in ["X-Forwarded-For: 127.0.0.1", "Forwarded: for=127.0.0.1", "X-Forwarded-For: 203.0.113.9"] {
                let answer = try await status(server, spelling, [field])
                #expect(answer != 200, "\(spelling) with \(field): \(answer)")
            }
        }
        await server.stop()
    }
    // Sign-in limits per client behind the proxy: SignInLimitTests.
}
