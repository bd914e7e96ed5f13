import Foundation
import Testing

/// Issue 9, item 6: transport and headers, checked on a real `har serve` over a real socket.
@Suite struct TransportSecurityTests {
    /// One request with curl, `Host` as given; the status and the response's header lines, lower-cased.
    private func headers(_ server: RunningServer, host: String, path: String = "/healthz") throws -> (
        status: Int, headers: [String: String]
    ) {
        let result = try runProgram(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", "-H", "Host: \(host)", server.baseURL + path])
        var headers: [String: String] = [:]
        var status = 0
        for line in result.output.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingCharacters(
                    in: .whitespaces)
            }
        }
        return (status, headers)
    }

    @Test func aPageOnAnotherNameIsRefusedWhileAddressesAndLocalhostAreAnswered() throws {
        let server = try RunningServer()
        defer { _ = server.stop() }
        let port = server.port
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "192.168.1.20"] {
            #expect(try headers(server, host: host).status == 200, "\(host)")
        }
        // DNS rebinding: an attacker's name pointed at this machine.
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "localhost.evil.example"] {
            #expect(try headers(server, host: host).status == 400, "\(host)")
        }
        #expect(try headers(server, host: "evil.example", path: "/signin").status == 400)
        // Not a host at all.
        for host in ["a b", "[::1", "x:port", "x:123456"] {
            #expect(try headers(server, host: host).status == 400, "\(host)")
        }
    }

    @Test func allowedHostsAddsNamesAndTheirSubdomains() throws {
        let server = try RunningServer(environment: ["HAR_ALLOWED_HOSTS": "har.example.org, .lan.example.org"])
        defer { _ = server.stop() }
        for host in ["har.example.org", "HAR.example.org:8443", "tablet.lan.example.org", "lan.example.org"] {
            #expect(try headers(server, host: host).status == 200, "\(host)")
        }
        for host in ["example.org", "xhar.example.org", "evil.example"] {
            #expect(try headers(server, host: host).status == 400, "\(host)")
        }
    }

    @Test func aBadAllowedHostsStopsStart() throws {
        #expect(throws: RunningServer.StartFailure.self) {
            _ = try RunningServer(environment: ["HAR_ALLOWED_HOSTS": "example.org:80"])
        }
    }

    @Test func permissionsPolicyAlwaysAndHSTSOnlyWhenReachedOverHTTPS() throws {
        let plain = try RunningServer()
        let answer = try headers(plain, host: "127.0.0.1")
        _ = plain.stop()
        #expect(
            answer.headers["permissions-policy"]
                == "camera=(self), geolocation=(self), microphone=(), payment=(), usb=()")
        #expect(answer.headers["strict-transport-security"] == nil)

        let proxied = try RunningServer(environment: ["HAR_COOKIE_SECURE": "true"])
        let secure = try headers(proxied, host: "127.0.0.1", path: "/static/css/app.css")
        _ = proxied.stop()
        #expect(secure.headers["strict-transport-security"] == "max-age=31536000")
        #expect(secure.headers["permissions-policy"] != nil)
    }

    @Test func listeningBeyondLoopbackOverPlainHTTPIsWarnedAtStart() throws {
        let server = try RunningServer(environment: ["HAR_HOST": "0.0.0.0"])
        let stopped = server.stop()
        #expect(stopped.stderr.contains("warning listening on 0.0.0.0 over plain HTTP"))
        #expect(stopped.stderr.contains("no allowed_hosts"))
        let loopback = try RunningServer()
        #expect(!loopback.stop().stderr.contains("warning"))
    }
}
