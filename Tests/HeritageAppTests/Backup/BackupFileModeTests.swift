import Foundation
import PlatformClient
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// OPS-01: what a backup writes is its owner's alone from the moment it appears (the database snapshot,
/// `pg_dump`'s output, the `.partial` archive, even over a leftover of another mode), and `backup
/// verify` unpacks into a folder whose name nobody can guess. Each file's mode is read as it appears
/// (inotify's creation event), not after the command, which would only see the final mode.
@Suite(.serialized) struct BackupFileModeTests {
    @Test func ops01SnapshotAndPartialAreOwnerOnlyFromTheirCreationOverALeftover() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "modes@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(20, photos: 2)
        let backups = folder + "/backups"
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        let archive = backups + "/modes.tar"
        // A leftover of a killed run, readable by everyone.
        try #require(FileManager.default.createFile(atPath: archive + ".partial", contents: Data("old".utf8)))
        chmod(archive + ".partial", 0o644)

        let watcher = try FileModeWatcher(folders: [fixture.dataDir, backups])
        let created = try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir)
        let seen = try watcher.finish()
        try #require(created.status == 0, "\(created.stderr)")
        let snapshots = seen.filter { $0.name.hasPrefix("backup-snapshot-") && $0.name.hasSuffix(".sqlite") }
        let partials = seen.filter { $0.name.hasSuffix(".partial") }
        #expect(!snapshots.isEmpty && !partials.isEmpty, "\(seen)")
        for file in snapshots + partials {
            #expect(file.mode & 0o077 == 0, "\(file.name) appeared with mode \(String(file.mode, radix: 8))")
        }
        var info = stat()
        #expect(stat(archive, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(String(info.st_mode, radix: 8))")
    }

    @Test func ops01VerifyUnpacksIntoAFolderNobodyCanGuess() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "verify@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(1, photos: 1)
        let archive = folder + "/verify.tar"
        try #require(try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir).status == 0)
        let temporary = folder + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let watcher = try FileModeWatcher(folders: [temporary])
        let verified = try await runHar(["backup", "verify", archive], environment: ["TMPDIR": temporary])
        let seen = try watcher.finish()
        #expect(verified.status == 0, "\(verified.stderr)")
        let scratch = try #require(seen.first { $0.name.hasPrefix("har-verify-") }, "\(seen)")
        #expect(scratch.mode & 0o777 == 0o700 && scratch.isFolder)
        #expect(
            scratch.name.wholeMatch(of: /har-verify-[0-9]+/) == nil,
            "\(scratch.name): named by the process id, which anyone can guess")
        #expect(fileNames(in: temporary).isEmpty, "the folder is removed")
    }
}

/// The same for `pg_dump`'s output, with `database_url`.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresBackupFileModeTests {
    @Test func ops01DumpIsOwnerOnlyFromItsCreation() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/single")
        try fixture.addUser(email: "pg-modes@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(5, photos: 1)
        let environment = [
            "HAR_DATABASE_URL": try PostgresCluster.shared().makeDatabase(),
            "HAR_PHOTO_DIR": fixture.dataDir + "/photos",
            "HAR_DATA_DIR": folder + "/node", "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k",
            "HAR_CONSUMER_SECRET": "s",
        ]
        let copied = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", fixture.dataDir], environment: environment)
        try #require(copied.status == 0, "\(copied.stderr)")
        try FileManager.default.createDirectory(atPath: folder + "/node", withIntermediateDirectories: true)
        let watcher = try FileModeWatcher(folders: [folder + "/node"])
        let created = try await runHar(["backup", "create", "--to", folder + "/pg.tar"], environment: environment)
        let seen = try watcher.finish()
        try #require(created.status == 0, "\(created.stderr)")
        let dumps = seen.filter { $0.name.hasSuffix(".pgdump") }
        #expect(!dumps.isEmpty, "\(seen)")
        for dump in dumps {
            #expect(dump.mode & 0o077 == 0, "\(dump.name) appeared with mode \(String(dump.mode, radix: 8))")
        }
    }
}

/// Records the mode of each file made in `folders` as it appears: inotify's `IN_CREATE`, the file's
/// `lstat` read at once on a thread of its own. `finish` makes a marker file in each folder and waits
/// for its events, so every creation before it has been seen.
final class FileModeWatcher: @unchecked Sendable {
    struct Seen: CustomStringConvertible {
        let name: String
        let mode: UInt32
        let isFolder: Bool
        var description: String { "\(name) \(String(mode, radix: 8))" }
    }

    private static let marker = "zz-watch-finished"
    private let descriptor: Int32
    private let folders: [Int32: String]
    private let lock = NSLock()
    private var seen: [Seen] = []
    private var markers = 0
    private let done = DispatchSemaphore(value: 0)

    init(folders paths: [String]) throws {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw TestFailure("inotify_init1: \(errno)") }
        var folders: [Int32: String] = [:]
        for path in paths {
            let watch = inotify_add_watch(descriptor, path, UInt32(IN_CREATE))
            guard watch >= 0 else { throw TestFailure("inotify_add_watch \(path): \(errno)") }
            folders[watch] = path
        }
        self.folders = folders
        Thread.detachNewThread { [self] in readEvents() }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return }
            var offset = 0
            while offset + 16 <= got {
                let watch = buffer.withUnsafeBytes { $0.load(fromByteOffset: offset, as: Int32.self) }
                let length = Int(buffer.withUnsafeBytes { $0.load(fromByteOffset: offset + 12, as: UInt32.self) })
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + length
                var info = stat()
                let folder = folders[watch] ?? ""
                guard lstat(folder + "/" + name, &info) == 0 || name == Self.marker else { continue }
                let finished = lock.withLock { () -> Bool in
                    if name == Self.marker {
                        markers += 1
                        return markers == folders.count
                    }
                    seen.append(
                        Seen(name: name, mode: info.st_mode & 0o7777, isFolder: info.st_mode & S_IFMT == S_IFDIR))
                    return false
                }
                if finished {
                    done.signal()
                    return
                }
            }
        }
    }

    /// Every creation seen until now.
    func finish() throws -> [Seen] {
        // open(2), not FileManager: it writes a temporary name and renames it, which IN_CREATE misses.
        for folder in folders.values {
            let made = open(folder + "/" + Self.marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard made >= 0 else { throw TestFailure("cannot write the marker in \(folder)") }
            close(made)
        }
        guard done.wait(timeout: .now() + 60) == .success else { throw TestFailure("inotify saw no marker") }
        close(descriptor)
        for folder in folders.values { unlink(folder + "/" + Self.marker) }
        return lock.withLock { seen }
    }
}
