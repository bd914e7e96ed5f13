import Basics
import FoundationEssentials
import PlatformClient
import SQLiteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `har backup create`: a consistent snapshot of the SQLite database (`VACUUM INTO`, one read
/// transaction, so `har serve` goes on taking uploads meanwhile), then exactly the photo files that
/// snapshot names, streamed into `NAME.partial`; flushed, read back and checked whole, and only then
/// renamed to `NAME`. Whatever stops it half-way leaves at most a `.partial`, which nothing takes
/// for a backup.
struct BackupCreator {
    struct Result {
        let path: String
        let bytes: Int
        let seconds: Double
        let photoFiles: Int
        let manifest: BackupManifest
    }

    let dataDir: String
    let photosDirectory: String
    /// PostgreSQL's connection string: the database is then dumped with `pg_dump -Fc`
    /// (`BackupCreator+Postgres.swift`) and the photos come from the shared photo folder.
    let databaseURL: String?
    /// `backup_key`: the archive's trailer is signed with it (`BackupSignature`).
    let key: String?

    init(configuration: Configuration) {
        dataDir = configuration.dataDir
        photosDirectory = configuration.photosDirectory
        databaseURL = configuration.databaseURL
        key = configuration.backupKey
    }

    /// Writes a backup to `destination` (see `writeArchive`). `removeSnapshot` removes the backup's
    /// own snapshot of the database; tests pass one that looks at the moment it is called.
    func create(to destination: String, removeSnapshot: (String) -> Void = BackupCreator.removeDatabaseFiles)
        throws -> Result
    {
        let started = WallClock.now()
        guard !destination.hasSuffix(".partial") else {
            throw BackupError("a backup's name must not end in .partial (the name of one being written)")
        }
        let database = dataDir + "/har.sqlite"
        if let databaseURL { return try createFromPostgres(databaseURL, to: destination, startedAt: started) }
        guard access(database, R_OK) == 0 else { throw BackupError("no database at \(database)") }
        removeLeftovers()
        let snapshot = dataDir + "/backup-snapshot-\(getpid()).sqlite"
        Self.removeDatabaseFiles(snapshot)
        defer { Self.removeDatabaseFiles(snapshot) }
        try takeSnapshot(of: database, into: snapshot)
        let manifest = try makeManifest(snapshot: snapshot, takenAt: started)

        try writeArchive(manifest: manifest, database: snapshot, to: destination, thenRemove: removeSnapshot)
        return Result(
            path: destination, bytes: BackupReader.size(of: destination), seconds: WallClock.now() - started,
            photoFiles: manifest.files.count - 1, manifest: manifest)
    }

    /// Streams the manifest, the database file, the photo files and the trailer into `NAME.partial`,
    /// flushes it, checks it whole, and renames it to `NAME`; on any failure the `.partial` goes. The
    /// database file, the backup's own snapshot or dump, goes through `thenRemove` as soon as its bytes
    /// are in the archive, before the rename: once `NAME` can be seen, no snapshot is left beside it,
    /// even when the process ends at that moment (OPS-01). The caller removes it too, on failure.
    func writeArchive(
        manifest: BackupManifest, database: String, to destination: String, thenRemove: (String) -> Void
    ) throws {
        let partial = destination + ".partial"
        do {
            let writer = try ArchiveWriter(path: partial)
            try writer.add(name: BackupManifest.entryName, bytes: try manifest.encoded())
            for file in manifest.files {
                let source =
                    file.path == manifest.databaseEntryName
                    ? database : photosDirectory + "/" + file.path.dropFirst("photos/".count)
                try writer.add(name: file.path, file: source, size: file.size, sha256: file.sha256)
            }
            let sealed = writer.seal()
            let entries = manifest.files.count + 1
            try writer.add(
                name: BackupTrailer.entryName,
                bytes: try BackupTrailer(
                    entries: entries, sha256: sealed,
                    hmacSHA256: key.map { BackupSignature.sign(checksum: sealed, entries: entries, key: $0) }
                ).encoded())
            try writer.finish()
            thenRemove(database)
            // The disk flush waits on the device, the check on the CPU (the archive is in the page
            // cache): both run at once, and both are done before the rename.
            let flush = writer.startFlush()
            let checked = Swift.Result { try verify(partial) }
            try flush.wait()
            try checked.get()
            guard rename(partial, destination) == 0 else {
                throw BackupError("cannot rename \(partial) to \(destination): \(ArchiveWriter.reason())")
            }
            _ = PhotoFiles.flush(Self.folder(of: destination))
        } catch {
            unlink(partial)
            throw error
        }
    }

    /// Reads the written archive back and checks it as `har backup verify` does, the database
    /// unpacked into a folder of the data folder that is removed afterwards.
    private func verify(_ partial: String) throws {
        let scratch = dataDir + "/backup-verify-\(getpid())"
        try? FileManager.default.removeItem(atPath: scratch)
        guard mkdir(scratch, 0o700) == 0 else {
            throw BackupError("cannot create \(scratch): \(ArchiveWriter.reason())")
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            _ = try BackupReader(
                path: partial, destination: scratch, extractsPhotos: false, key: key, allowsNewerSchema: true,
                isCheckOfOwnPartial: true
            ).read()
        } catch {
            throw BackupError(
                "the backup written fails its check (a file changed or damaged on disk, or the disk): \(error)")
        }
    }

    /// `VACUUM INTO` reads the database in one transaction: a consistent snapshot while the server writes.
    /// It writes into the empty file made first at mode 0600 (SQLite accepts an empty file), so the
    /// snapshot is never readable by others, not even for a moment under a loose umask.
    private func takeSnapshot(of database: String, into snapshot: String) throws {
        let made = ArchiveWriter.createPrivate(snapshot)
        guard made >= 0 else { throw BackupError("cannot create \(snapshot): \(ArchiveWriter.reason())") }
        close(made)
        do {
            let db = try Database(path: database, mode: .readWrite, create: false, busyTimeout: .seconds(30))
            defer { db.close() }
            try db.execute(
                "VACUUM INTO '"
                    + String(snapshot.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''"))
                    + "'")
        } catch {
            throw BackupError("cannot snapshot the database \(database): \(error)")
        }
    }

    /// The manifest from the snapshot: schema, counts, and the photo files it names that exist.
    private func makeManifest(snapshot: String, takenAt: Double) throws -> BackupManifest {
        let db = try Database(path: snapshot, mode: .readOnly, create: false)
        defer { db.close() }
        let schema = try BackupSnapshotSQL.schemaVersion(db, migrationsTable: Migrator.tableName)
        let sqliteVersion = try db.scalar("SELECT sqlite_version()").string ?? ""
        let counts = try BackupSnapshotSQL.rowCounts(db, tables: BackupSnapshotSQL.tables(db))
        var files = [
            BackupManifest.File(
                path: BackupManifest.databaseEntry, size: BackupReader.size(of: snapshot),
                sha256: try SHA256Stream.hashFile(at: snapshot))
        ]
        let (photoFiles, swept, missing) = try photoEntries(BackupSnapshotSQL.photos(db))
        files += photoFiles
        return BackupManifest(
            schemaVersion: schema, sqliteVersion: sqliteVersion, createdAt: ISO8601.utc(seconds: takenAt),
            rowCounts: counts, files: files, sweptPhotos: swept, missingPhotos: missing)
    }

    /// The snapshot and check folder of a backup whose process is gone (killed half-way).
    func removeLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDir)) ?? []
        for name in names where name.hasPrefix("backup-snapshot-") || name.hasPrefix("backup-verify-") {
            let digits = name.split(separator: "-").last?.prefix { $0.isNumber } ?? ""
            guard let pid = Int32(digits), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            if name.hasPrefix("backup-verify-") {
                try? FileManager.default.removeItem(atPath: dataDir + "/" + name)
            } else {
                let stem = dataDir + "/" + String(name.prefix { $0 != "." })
                Self.removeDatabaseFiles(stem + ".sqlite")
                unlink(stem + ".pgdump")
            }
        }
    }

    static func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
