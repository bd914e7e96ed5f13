import Foundation
import PlatformClient
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// OPS-02: an archive cannot carry code. Archives crafted from a real backup, their checksums made
/// right (anyone can compute a SHA-256): a snapshot with a trigger, a view or a table the migrations do
/// not make is refused by verify and restore (exit 17) and the data folder stays as it was; a
/// manifest's table names never reach SQL; with `backup_key` set, an unsigned archive or a changed
/// signature is refused (exit 18).
@Suite(.serialized) struct BackupTamperTests {
    static let key = "a-backup-key-of-thirty-two-chars"

    /// A data folder with a few reports and its backup; the folder, the archive, the unpacked database.
    func backedUp(_ folder: String, environment: [String: String] = [:]) async throws -> (
        dataDir: String, archive: String, database: String
    ) {
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "tamper@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(3, photos: 0)
        let archive = folder + "/clean.tar"
        let created = try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir, extra: environment)
        try #require(created.status == 0, "\(created.stderr)")
        let unpacked = folder + "/unpacked"
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        let tar = try await runProgram("/usr/bin/tar", ["xf", archive, "-C", unpacked])
        try #require(tar.status == 0, "\(tar.stderr)")
        return (fixture.dataDir, archive, unpacked + "/har.sqlite")
    }

    /// An archive of `database` under `manifest` with every size and checksum right, signed with `key`.
    func craft(_ database: String, manifest original: BackupManifest, to path: String, key: String? = nil) throws {
        var manifest = original
        manifest.files = [
            BackupManifest.File(
                path: BackupManifest.databaseEntry, size: BackupReader.size(of: database),
                sha256: try SHA256Stream.hashFile(at: database))
        ]
        let writer = try ArchiveWriter(path: path)
        try writer.add(name: BackupManifest.entryName, bytes: try manifest.encoded())
        let file = manifest.files[0]
        try writer.add(name: file.path, file: database, size: file.size, sha256: file.sha256)
        let sealed = writer.seal()
        try writer.add(
            name: BackupTrailer.entryName,
            bytes: try BackupTrailer(
                entries: 2, sha256: sealed,
                hmacSHA256: key.map { BackupSignature.sign(checksum: sealed, entries: 2, key: $0) }
            ).encoded())
        try writer.finish()
        try writer.startFlush().wait()
    }

    func changed(_ database: String, _ sql: String, into copy: String) throws {
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        let db = try Database(path: copy)
        defer { db.close() }
        try db.execute(sql)
    }

    @Test func ops02SnapshotWithATriggerAViewOrAnExtraTableIsRefused() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (dataDir, archive, database) = try await backedUp(folder)
        let original = try await manifest(of: archive)
        let before = try reportCount(dataDir: dataDir, state: "queued")

        // The crafting itself is right: an unchanged copy passes.
        try craft(database, manifest: original, to: folder + "/same.tar")
        let same = try await runHar(["backup", "verify", folder + "/same.tar"])
        #expect(same.status == 0, "\(same.stderr)")

        let crafted = [
            "trigger": "CREATE TRIGGER planted AFTER INSERT ON reports BEGIN DELETE FROM photos; END",
            "view": "CREATE VIEW planted AS SELECT * FROM users",
            "table": "CREATE TABLE planted (x)",
            "index": "CREATE INDEX planted ON reports(name)",
        ]
        for (kind, sql) in crafted.sorted(by: { $0.key < $1.key }) {
            let copy = folder + "/\(kind).sqlite"
            try changed(database, sql, into: copy)
            let path = folder + "/\(kind).tar"
            try craft(copy, manifest: original, to: path)
            let verified = try await runHar(["backup", "verify", path])
            #expect(verified.status == 17, "\(kind): \(verified.stdout) \(verified.stderr)")
            #expect(verified.stderr.contains("not ours: \(kind) planted"), "\(kind): \(verified.stderr)")
            let restored = try await runBackup(["restore", path], dataDir: dataDir)
            #expect(restored.status == 17, "\(kind): \(restored.stderr)")
        }
        #expect(try reportCount(dataDir: dataDir, state: "queued") == before, "the data folder is untouched")
        #expect(fileNames(in: folder).allSatisfy { !$0.contains(".restoring-") && !$0.contains(".before-restore-") })
    }

    @Test func ops02ManifestTableNamesNeverReachSQL() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (_, archive, database) = try await backedUp(folder)
        var hostile = try await manifest(of: archive)
        hostile.rowCounts[#"users" WHERE 0; DROP TABLE reports; --"#] = 0
        try craft(database, manifest: hostile, to: folder + "/names.tar")
        let verified = try await runHar(["backup", "verify", folder + "/names.tar"])
        #expect(verified.status == 11, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stderr.contains("counts a table the database does not have"), "\(verified.stderr)")
    }

    @Test func ops02WithABackupKeyUnsignedOrChangedArchivesAreRefused() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keyed = ["HAR_BACKUP_KEY": Self.key]
        let (dataDir, signed, database) = try await backedUp(folder, environment: keyed)
        let original = try await manifest(of: signed)

        let checked = try await runHar(["backup", "verify", signed], environment: keyed)
        #expect(checked.status == 0 && checked.stdout.contains("signature: made with backup_key"), "\(checked)")
        let unkeyed = try await runHar(["backup", "verify", signed])
        #expect(unkeyed.status == 0 && unkeyed.stdout.contains("present, not checked"), "\(unkeyed.stdout)")

        // Unsigned, signed with another key, and a signature changed by one character.
        try craft(database, manifest: original, to: folder + "/unsigned.tar")
        try craft(database, manifest: original, to: folder + "/other.tar", key: "another-key-of-sixteen-or-more")
        let trailer = try await runProgram("/usr/bin/tar", ["xOf", signed, BackupTrailer.entryName])
        var changed = try JSONDecoder().decode(BackupTrailer.self, from: Data(trailer.stdout.utf8))
        let mac = try #require(changed.hmacSHA256)
        changed.hmacSHA256 = (mac.first == "0" ? "1" : "0") + mac.dropFirst()
        try rewriteTrailer(of: signed, with: changed, to: folder + "/changed.tar")
        for name in ["unsigned", "other", "changed"] {
            let verified = try await runHar(["backup", "verify", folder + "/\(name).tar"], environment: keyed)
            #expect(verified.status == 18, "\(name): \(verified.stdout) \(verified.stderr)")
            let restored = try await runBackup(["restore", folder + "/\(name).tar"], dataDir: dataDir, extra: keyed)
            #expect(restored.status == 18, "\(name): \(restored.stderr)")
        }
        let unsigned = try await runHar(["backup", "verify", folder + "/unsigned.tar"])
        #expect(unsigned.status == 0 && unsigned.stdout.contains("signature: none"), "\(unsigned.stdout)")
        let short = try await runHar(["backup", "verify", signed], environment: ["HAR_BACKUP_KEY": "short"])
        #expect(short.status == 78 && short.stderr.contains("backup_key"), "\(short.stderr)")
    }

    /// The archive with its last entry (the trailer) replaced: the same bytes up to the trailer's header.
    func rewriteTrailer(of archive: String, with trailer: BackupTrailer, to path: String) throws {
        let bytes = try #require(FileManager.default.contents(atPath: archive))
        let marker = Data(BackupTrailer.entryName.utf8)
        let header = try #require(bytes.range(of: marker)).lowerBound
        var out = bytes.prefix(header)
        let body = try trailer.encoded()
        out.append(
            contentsOf: try ArchiveWriter.header(
                name: BackupTrailer.entryName, size: body.count, modificationTime: Int(Date().timeIntervalSince1970)))
        out.append(contentsOf: body)
        out.append(contentsOf: [UInt8](repeating: 0, count: (512 - body.count % 512) % 512 + 1024))
        try out.write(to: URL(fileURLWithPath: path))
    }
}

/// The same on PostgreSQL: a dump holding a function and a trigger the migrations do not make is
/// refused before `pg_restore` loads anything (exit 17); the restore loads by the object list read.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresBackupTamperTests {
    @Test func ops02DumpWithAForeignTriggerIsRefusedAndTheDatabaseStaysEmpty() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/single")
        try fixture.addUser(email: "pg-tamper@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(2, photos: 1)
        let cluster = try PostgresCluster.shared()
        let source = try cluster.makeDatabase()
        func environment(_ url: String) -> [String: String] {
            [
                "HAR_DATABASE_URL": url, "HAR_PHOTO_DIR": fixture.dataDir + "/photos", "HAR_DATA_DIR": folder + "/node",
                "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
            ]
        }
        let copied = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", fixture.dataDir], environment: environment(source))
        try #require(copied.status == 0, "\(copied.stderr)")
        let pool = try PostgresPool(source, configuration: .init(size: 1))
        try pool.withConnection {
            try $0.execute(
                """
                CREATE FUNCTION planted() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN DELETE FROM photos; RETURN NEW; END $$;
                CREATE TRIGGER planted AFTER INSERT ON reports FOR EACH ROW EXECUTE FUNCTION planted();
                """)
        }
        pool.close()
        let archive = folder + "/planted.tar"
        let created = try await runHar(["backup", "create", "--to", archive], environment: environment(source))
        try #require(created.status == 0, "\(created.stderr)")

        let target = try cluster.makeDatabase()
        var restoring = environment(target)
        restoring["HAR_PHOTO_DIR"] = folder + "/restored-photos"
        let restored = try await runHar(["backup", "restore", archive], environment: restoring)
        #expect(restored.status == 17, "\(restored.stdout) \(restored.stderr)")
        #expect(restored.stderr.contains("TRIGGER public reports planted"), "\(restored.stderr)")
        #expect(restored.stderr.contains("FUNCTION public planted()"), "\(restored.stderr)")
        let check = try PostgresPool(target, configuration: .init(size: 1))
        defer { check.close() }
        #expect(try check.withConnection { try $0.scalar("SELECT to_regclass('reports') IS NULL").int } == 1)
        #expect(!FileManager.default.fileExists(atPath: folder + "/restored-photos"))
    }
}
