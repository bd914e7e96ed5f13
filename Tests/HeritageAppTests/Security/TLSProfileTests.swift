import Foundation
import Testing

/// The TLS `har serve` offers itself is Mozilla's intermediate profile, as a tool nobody here wrote
/// sees it: Debian's `testssl.sh` (installed by `scripts/setup`) against a real server with a
/// certificate from `har tls self-signed`. Only the protocol, cipher-category and server-order checks
/// run (about 20 s).
@Suite struct TLSProfileTests {
    static let testssl = "/usr/bin/testssl"

    @Test func testsslFindsNoDeprecatedProtocolNoCBCSuiteAndServerOrder() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.testssl), "testssl.sh is missing: run scripts/setup")
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try await runHar(
            ["tls", "self-signed", "--host", "localhost", "--host", "127.0.0.1", "--dir", folder + "/tls"])
        #expect(made.status == 0, "\(made.stderr)")
        let server = try await ServeProcess(environment: [
            "HAR_TLS_CERT": folder + "/tls/cert.pem", "HAR_TLS_KEY": folder + "/tls/key.pem",
        ])
        let report = folder + "/testssl.json"
        let run = try await runProgram(
            Self.testssl,
            [
                "--quiet", "--color", "0", "--warnings", "off", "--protocols", "--std", "--server-preference",
                "--jsonfile", report, "https://127.0.0.1:\(server.port)",
            ])
        _ = await server.stop()
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "\(run.stdout)")
        var findings: [String: String] = [:]
        for entry in entries {
            if let id = entry["id"] as? String, let finding = entry["finding"] as? String { findings[id] = finding }
        }
        for deprecated in ["SSLv2", "SSLv3", "TLS1", "TLS1_1"] {
            #expect(findings[deprecated] == "not offered", "\(deprecated): \(findings[deprecated] ?? "no finding")")
        }
        #expect(findings["TLS1_2"] == "offered")
        #expect(findings["TLS1_3"]?.hasPrefix("offered") == true)
        // AVERAGE is testssl's name for the obsolete CBC suites (AES-CBC, ARIA, Camellia …).
        for category in ["NULL", "aNULL", "EXPORT", "LOW", "3DES_IDEA", "AVERAGE"] {
            #expect(
                findings["cipherlist_\(category)"] == "not offered",
                "\(category): \(findings["cipherlist_\(category)"] ?? "none")")
        }
        #expect(findings["cipherlist_STRONG"] == "offered")
        #expect(findings["cipher_order"] == "server")
        for (id, finding) in findings where id.hasPrefix("cipherorder_") {
            #expect(
                !finding.contains("CBC") && !finding.contains("-SHA ") && !finding.hasSuffix("-SHA"),
                "\(id): \(finding)")
        }
    }
}
