import Foundation
import Testing

@testable import HeritageApp

/// Transport and headers, checked on the real application over a real socket.
@Suite struct TransportSecurityTests {
    /// One request with curl, `Host` as given; the status and the response's header fields, names
    /// lower-cased (curl: the test client always names its own host).
    private func headers(_ server: some ServerUnderTest, host: String, path: String = "/healthz") async throws -> (
        status: Int, headers: [String: String]
    ) {
        let result = try await runProgram(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", "-H", "Host: \(host)", server.baseURL + path])
        var headers: [String: String] = [:]
        var status = 0
        for line in result.stdout.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingCharacters(
                    in: .whitespaces)
            }
        }
        return (status, headers)
    }

    @Test func aPageOnAnotherNameIsRefusedWhileAddressesAndLocalhostAreAnswered() async throws {
        let server = try RunningServer()
        let port = server.port
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "192.168.1.20"] {
            #expect(try await headers(server, host: host).status == 200, "\(host)")
        }
        // DNS rebinding: an attacker's name pointed at this machine.
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "localhost.evil.example"] {
            #expect(try await headers(server, host: host).status == 400, "\(host)")
        }
        #expect(try await headers(server, host: "evil.example", path: "/signin").status == 400)
        let metrics = try await curl(server.baseURL + "/metrics").body
        #expect(metrics.contains("har_http_refused_total{reason=\"host_not_allowed\"} 5"), "\(metrics)")
        // Not a host at all.
        for host in ["a b", "[::1", "x:port", "x:123456"] {
            #expect(try await headers(server, host: host).status == 400, "\(host)")
        }
        await server.stop()
    }

    @Test func allowedHostsAddsNamesAndTheirSubdomains() async throws {
        let server = try RunningServer(environment: ["HAR_ALLOWED_HOSTS": "har.example.org, .lan.example.org"])
        for host in ["har.example.org", "HAR.example.org:8443", "tablet.lan.example.org", "lan.example.org"] {
            #expect(try await headers(server, host: host).status == 200, "\(host)")
        }
        for host in ["example.org", "xhar.example.org", "evil.example"] {
            #expect(try await headers(server, host: host).status == 400, "\(host)")
        }
        await server.stop()
    }

    @Test func aBadAllowedHostsStopsStart() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try RunningServer(environment: ["HAR_ALLOWED_HOSTS": "example.org:80"])
        }
    }

    @Test func permissionsPolicyAlwaysAndHSTSOnlyWhenReachedOverHTTPS() async throws {
        let plain = try RunningServer()
        let answer = try await headers(plain, host: "127.0.0.1")
        await plain.stop()
        #expect(
            answer.headers["permissions-policy"]
                == "camera=(self), geolocation=(self), microphone=(), payment=(), usb=()")
        #expect(answer.headers["strict-transport-security"] == nil)

        let proxied = try RunningServer(environment: ["HAR_COOKIE_SECURE": "true"])
        let secure = try await headers(proxied, host: "127.0.0.1", path: "/static/css/app.css")
        await proxied.stop()
        #expect(secure.headers["strict-transport-security"] == "max-age=31536000")
        #expect(secure.headers["permissions-policy"] != nil)
    }

    @Test func listeningBeyondLoopbackOverPlainHTTPIsWarnedAtStart() async throws {
        let server = try await ServeProcess(environment: ["HAR_HOST": "0.0.0.0"])
        let stopped = await server.stop()
        #expect(stopped.stderr.contains("warning listening on 0.0.0.0 over plain HTTP"))
        #expect(stopped.stderr.contains("no allowed_hosts"))
        let loopback = try await ServeProcess()
        #expect(!(await loopback.stop()).stderr.contains("warning"))
    }
}
