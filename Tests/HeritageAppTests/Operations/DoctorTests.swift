import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// OPS-07: `har doctor`, the built binary as an operator runs it: one line per check, OK / WARN / FAIL
/// with what to do, and the exit code of the worst (0, 1, 2). Each failure an operator meets after an
/// install or upgrade is made here for real and must be found.
@Suite struct DoctorTests {
    /// `har doctor` with these `HAR_` variables; its status and lines.
    func doctor(_ environment: [String: String], asUser: UInt32? = nil) async throws -> (status: Int32, lines: [String])
    {
        let result: ProgramResult
        if let user = asUser {
            result = try await runProgram(
                "/usr/bin/setpriv",
                ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", TestPaths.harExecutable, "doctor"],
                environment: harEnvironment(environment), directory: TestPaths.packageRoot)
        } else {
            result = try await runHar(["doctor"], environment: environment)
        }
        return (result.status, result.stdout.split(separator: "\n").map(String.init))
    }

    func line(_ lines: [String], _ prefix: String) -> String { lines.first { $0.hasPrefix(prefix) } ?? "" }

    @Test func aHealthyFolderWithTheEmbeddedPlatformIsAllOK() async throws {
        let data = TemporaryDirectory(prefix: "har-doctor")
        let (status, lines) = try await doctor(["HAR_DATA_DIR": data.path])
        #expect(status == 0, "\(lines)")
        for subject in [
            "configuration", "data folder", "free space", "database", "platform", "clock", "tls", "libvips",
        ] {
            #expect(lines.contains { $0.hasPrefix("OK   \(subject): ") }, "no OK line for \(subject): \(lines)")
        }
    }

    @Test func anUnwritableDataFolderFails() async throws {
        let data = TemporaryDirectory(prefix: "har-doctor")
        // Root writes anywhere: the check runs as nobody then, as a service user without the folder would.
        let nobody: UInt32? = getuid() == 0 ? 65534 : nil
        chmod(data.path, nobody == nil ? 0o500 : 0o755)
        defer { chmod(data.path, 0o700) }
        let (status, lines) = try await doctor(["HAR_DATA_DIR": data.path], asUser: nobody)
        #expect(status == 2, "\(lines)")
        let found = line(lines, "FAIL data folder: cannot write in \(data.path)")
        #expect(found.contains("; do: chown"), "\(lines)")
    }

    @Test func aWrongConsumerKeyFailsAndTheRightOneIsAccepted() async throws {
        let folder = TemporaryDirectory(prefix: "har-doctor")
        let platform = try await PlatformProcess(folder: folder.path)
        defer { Task { await platform.stop() } }
        var environment = [
            "HAR_DATA_DIR": folder.file("data"), "HAR_PLATFORM_URL": "http://127.0.0.1:\(platform.port)",
            "HAR_CONSUMER_KEY": "not-the-key", "HAR_CONSUMER_SECRET": PlatformProcess.secret,
        ]
        let wrong = try await doctor(environment)
        #expect(wrong.status == 2, "\(wrong.lines)")
        #expect(line(wrong.lines, "FAIL platform: the platform refused the consumer key").contains("consumer_key"))
        #expect(!wrong.lines.joined().contains(PlatformProcess.secret), "the secret was printed")

        environment["HAR_CONSUMER_KEY"] = PlatformProcess.key
        let right = try await doctor(environment)
        #expect(line(right.lines, "OK   platform: reachable; the consumer key").isEmpty == false, "\(right.lines)")
        // The platform's Date against this machine's clock: the same clock here.
        #expect(line(right.lines, "OK   clock: ").isEmpty == false, "\(right.lines)")
    }

    /// OPS-06: a consumer secret (or a database password) in a configuration file every user can read
    /// is a warning that says how to close it; at 0640 it is not.
    @Test func aSecretInAFileOthersCanReadWarns() async throws {
        let folder = TemporaryDirectory(prefix: "har-doctor")
        let platform = try await PlatformProcess(folder: folder.path)
        defer { Task { await platform.stop() } }
        let file = folder.file("har.json")
        let configuration = """
            {"platform_url": "http://127.0.0.1:\(platform.port)", "consumer_key": "\(PlatformProcess.key)",
             "consumer_secret": "\(PlatformProcess.secret)", "data_dir": "\(folder.file("data"))"}
            """
        try #require(FileManager.default.createFile(atPath: file, contents: Data(configuration.utf8)))
        chmod(file, 0o644)
        let open = try await runHar(["doctor", "--config", file])
        let warning = line(open.stdout.split(separator: "\n").map(String.init), "WARN secrets: \(file) holds")
        #expect(warning.contains("consumer_secret") && warning.contains("chmod 0640"), "\(open.stdout)")
        #expect(open.status == 1 && !open.stdout.contains(PlatformProcess.secret))
        chmod(file, 0o640)
        let closed = try await runHar(["doctor", "--config", file])
        #expect(closed.stdout.contains("OK   secrets: no secret in a file other users can read"), "\(closed.stdout)")
        #expect(SecretFilesCheck.hasPassword(databaseURL: "postgresql://har:pw@db/har"))
        #expect(!SecretFilesCheck.hasPassword(databaseURL: "postgresql://har@db/har"))
        #expect(SecretFilesCheck.hasPassword(databaseURL: "host=db user=har password=pw"))
    }

    @Test func aCertificateThatDoesNotMatchItsKeyFails() async throws {
        let folder = TemporaryDirectory(prefix: "har-doctor")
        try await TestCertificates.selfSigned(in: folder.path, name: "a")
        try await TestCertificates.selfSigned(in: folder.path, name: "b")
        let (status, lines) = try await doctor([
            "HAR_DATA_DIR": folder.file("data"), "HAR_TLS_CERT": folder.file("a.crt"),
            "HAR_TLS_KEY": folder.file("b.key"),
        ])
        #expect(status == 2, "\(lines)")
        #expect(
            !line(lines, "FAIL tls: the certificate \(folder.file("a.crt")) does not match the key").isEmpty, "\(lines)"
        )

        let matching = try await doctor([
            "HAR_DATA_DIR": folder.file("data"), "HAR_TLS_CERT": folder.file("a.crt"),
            "HAR_TLS_KEY": folder.file("a.key"),
        ])
        #expect(!line(matching.lines, "OK   tls: certificate and key match").isEmpty, "\(matching.lines)")
    }

    @Test func anExpiredCertificateFails() async throws {
        let folder = TemporaryDirectory(prefix: "har-doctor")
        try await TestCertificates.expired(in: folder.path)
        let (status, lines) = try await doctor([
            "HAR_DATA_DIR": folder.file("data"), "HAR_TLS_CERT": folder.file("old.crt"),
            "HAR_TLS_KEY": folder.file("old.key"),
        ])
        #expect(status == 2, "\(lines)")
        #expect(line(lines, "FAIL tls: the certificate").contains("expired"), "\(lines)")
    }

    @Test func aDatabaseNewerThanTheBinaryFails() async throws {
        let data = TemporaryDirectory(prefix: "har-doctor")
        let database = try Database(path: data.file("har.sqlite"))
        try Migrator.apply(AppMigrations.sqlite, to: database)
        let newer = (AppMigrations.sqlite.map(\.version).max() ?? 0) + 1
        try database.run(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from a newer har', 'now')",
            .integer(Int64(newer)))
        database.close()
        let (status, lines) = try await doctor(["HAR_DATA_DIR": data.path])
        #expect(status == 2, "\(lines)")
        let found = line(lines, "FAIL database: ")
        #expect(found.contains("schema version \(newer), newer than this binary's"), "\(lines)")
        #expect(found.contains("restore the snapshot"))
    }
}

/// Certificates made with the openssl program, as an operator or a CA would hand them over.
enum TestCertificates {
    static func selfSigned(in folder: String, name: String) async throws {
        let result = try await runProgram(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                "-subj", "/CN=\(name)", "-keyout", "\(folder)/\(name).key", "-out", "\(folder)/\(name).crt",
            ])
        guard result.status == 0 else { throw TestFailure("openssl req: \(result.stderr)") }
    }

    /// A certificate valid for one day in 2020 (`openssl ca` takes explicit dates; `req` does not).
    static func expired(in folder: String) async throws {
        let config = """
            [ca]
            default_ca = test
            [test]
            database = \(folder)/index.txt
            new_certs_dir = \(folder)
            serial = \(folder)/serial
            default_md = sha256
            policy = any
            [any]
            commonName = supplied
            """
        #expect(FileManager.default.createFile(atPath: folder + "/ca.cnf", contents: Data(config.utf8)))
        #expect(FileManager.default.createFile(atPath: folder + "/index.txt", contents: nil))
        #expect(FileManager.default.createFile(atPath: folder + "/serial", contents: Data("01\n".utf8)))
        let request = try await runProgram(
            "/usr/bin/openssl",
            [
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=old",
                "-keyout", folder + "/old.key", "-out", folder + "/old.csr",
            ])
        guard request.status == 0 else { throw TestFailure("openssl req: \(request.stderr)") }
        let signed = try await runProgram(
            "/usr/bin/openssl",
            [
                "ca", "-batch", "-config", folder + "/ca.cnf", "-selfsign", "-keyfile", folder + "/old.key",
                "-in", folder + "/old.csr", "-out", folder + "/old.crt", "-startdate", "20200101000000Z",
                "-enddate", "20200102000000Z",
            ])
        guard signed.status == 0 else { throw TestFailure("openssl ca: \(signed.stderr)") }
    }
}
