import Foundation
import Testing

/// A malformed `HAR_DATABASE_URL` stops `har serve` with the key or scheme that is wrong, and never with
/// the URL's text: libpq's own parse errors quote it, password included.
@Suite struct DatabaseURLTests {
    private func serveOutput(databaseURL: String) async throws -> (status: Int32, output: String) {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await runHar(
            ["serve"],
            environment: [
                "HAR_DATA_DIR": folder, "HAR_PORT": "0", "HAR_DATABASE_URL": databaseURL,
                "HAR_PLATFORM_URL": "http://127.0.0.1:9", "HAR_CONSUMER_KEY": "key",
                "HAR_CONSUMER_SECRET": "consumer-secret",
            ])
        return (result.status, result.stdout + result.stderr)
    }

    @Test(arguments: [
        ("postgress://har:S3cret@db/har", "\"postgress\""),
        ("postgresql://har:50%S3cret@db/har", "%25"),
        ("host=db passwrd=S3cret dbname=har", "\"passwrd\""),
        ("host=db S3cret dbname=har", "word 2"),
        ("postgresql://har:S3cret@db/har?sslmod=verify-full", "\"sslmod\""),
    ])
    func aMalformedURLNamesTheMistakeAndNeverThePassword(url: String, named: String) async throws {
        let result = try await serveOutput(databaseURL: url)
        #expect(result.status != 0)
        #expect(result.output.contains("database_url is not valid"), "\(result.output)")
        #expect(result.output.contains(named), "\(result.output)")
        #expect(!result.output.contains("S3cret"), "\(result.output)")
    }
}
