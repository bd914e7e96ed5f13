import Foundation
import Testing

/// `har tls self-signed`: a certificate a tablet on a LAN can trust, checked by
/// OpenSSL's own verifier and by a real HTTPS request to a real `har serve` that uses it.
@Suite struct TLSCommandTests {
    /// A program's exit status and all it printed.
    private func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result =
            executable == TestPaths.harExecutable
            ? try await runHar(arguments)
            : try await runProgram(executable, arguments, environment: harEnvironment([:]))
        return (result.status, result.stdout + result.stderr)
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func writesAnAuthorityAndAServerCertificateThatHTTPSClientsTrust() async throws {
        let folder = try TestPaths.temporaryDirectory() + "/tls"
        let made = try await run(
            TestPaths.harExecutable,
            ["tls", "self-signed", "--host", "localhost", "--host", "127.0.0.1", "--dir", folder])
        #expect(made.status == 0, "\(made.output)")
        #expect(made.output.contains("SHA-256 fingerprint"))
        #expect(!made.output.contains("PRIVATE KEY"))
        #expect(try mode(folder) == 0o700)
        #expect(try mode(folder + "/key.pem") == 0o600)
        #expect(try mode(folder + "/ca.pem") == 0o644)

        let verified = try await run(
            "/usr/bin/openssl", ["verify", "-CAfile", folder + "/ca.pem", folder + "/cert.pem"])
        #expect(verified.status == 0, "\(verified.output)")
        let text = try await run("/usr/bin/openssl", ["x509", "-in", folder + "/cert.pem", "-noout", "-text"]).output
        #expect(text.contains("DNS:localhost, IP Address:127.0.0.1"))
        #expect(text.contains("TLS Web Server Authentication"))
        let authority = try await run("/usr/bin/openssl", ["x509", "-in", folder + "/ca.pem", "-noout", "-text"]).output
        #expect(authority.contains("CA:TRUE"))
        #expect(authority.contains("Name Constraints: critical"))

        let server = try await ServeProcess(environment: [
            "HAR_TLS_CERT": folder + "/cert.pem", "HAR_TLS_KEY": folder + "/key.pem",
        ])
        let url = "https://localhost:\(server.port)/healthz"
        let trusted = try await run("/usr/bin/curl", ["-sS", "--cacert", folder + "/ca.pem", url])
        // Without the authority the same request is refused: the trust comes from ca.pem, nothing else.
        let untrusted = try await run("/usr/bin/curl", ["-sS", url])
        _ = await server.stop()
        #expect(trusted.status == 0, "\(trusted.output)")
        #expect(trusted.output.contains(#""status":"ok""#))
        #expect(untrusted.status == 60)
    }

    @Test func theCertificateIsForTheGivenNamesOnly() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let made = try await run(
            TestPaths.harExecutable, ["tls", "self-signed", "--host", "har.local", "--dir", folder])
        #expect(made.status == 0, "\(made.output)")
        let check = try await run(
            "/usr/bin/openssl",
            ["verify", "-CAfile", folder + "/ca.pem", "-verify_hostname", "evil.example", folder + "/cert.pem"])
        #expect(check.status != 0)
        let own = try await run(
            "/usr/bin/openssl",
            ["verify", "-CAfile", folder + "/ca.pem", "-verify_hostname", "har.local", folder + "/cert.pem"])
        #expect(own.status == 0, "\(own.output)")
    }

    @Test(arguments: [
        "a,DNS:evil.example", "*.example.org", "", "-lead.example", "ex ample", "1234", "exa_mple.org",
        String(repeating: "a", count: 64) + ".org", "IP:10.0.0.1",
    ])
    func refusesAHostThatIsNeitherANameNorAnAddress(host: String) async throws {
        let folder = try TestPaths.temporaryDirectory()
        let refused = try await run(TestPaths.harExecutable, ["tls", "self-signed", "--host", host, "--dir", folder])
        #expect(refused.status == 64)
        #expect(refused.output.contains("is neither a host name nor an IP address"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/key.pem"))
    }

    @Test func refusesALifeBeyondWhatBrowsersAccept() async throws {
        let folder = try TestPaths.temporaryDirectory()
        let refused = try await run(
            TestPaths.harExecutable, ["tls", "self-signed", "--host", "::1", "--days", "900", "--dir", folder])
        #expect(refused.status == 1)
        #expect(refused.output.contains("--days must be between 1 and 825"))
        let accepted = try await run(TestPaths.harExecutable, ["tls", "self-signed", "--host", "::1", "--dir", folder])
        #expect(accepted.status == 0, "\(accepted.output)")
    }
}
