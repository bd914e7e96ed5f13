import Basics
import FoundationEssentials
import PlatformClient
import PostgresStorage

#if canImport(Glibc)
    import Glibc
#endif

extension BackupCreator {
    /// `har backup create` on PostgreSQL: one `REPEATABLE READ` transaction exports its snapshot
    /// (`pg_export_snapshot()`), reads the schema, the row counts and the photo rows in it, and keeps
    /// it open while `pg_dump -Fc --snapshot` dumps exactly that state. So the dump and the manifest
    /// describe one moment, the nodes go on writing meanwhile, and the photo files added to the
    /// archive are those that moment names. The rest is the SQLite backup's layout, `har.pgdump` in
    /// place of `har.sqlite`.
    func createFromPostgres(_ databaseURL: String, to destination: String, startedAt: Double) throws -> Result {
        let tools = try PostgresTools(databaseURL: databaseURL)
        if access(dataDir, F_OK) != 0 { try DataFolder.prepare(dataDir) }
        removeLeftovers()
        let dump = dataDir + "/backup-snapshot-\(getpid()).pgdump"
        // Made empty at mode 0600 before pg_dump opens it (and truncates it, keeping the mode): the
        // dump is never readable by others, not even for a moment under a loose umask.
        let made = ArchiveWriter.createPrivate(dump)
        guard made >= 0 else { throw BackupError("cannot create \(dump): \(ArchiveWriter.reason())") }
        close(made)
        defer { unlink(dump) }
        let connection = try PostgresConnection.forBackup(databaseURL)
        defer { connection.close() }
        var manifest: BackupManifest
        do {
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { _ = try? connection.execute("ROLLBACK") }
            let snapshot = try connection.scalar("SELECT pg_export_snapshot()").string ?? ""
            manifest = try postgresManifest(connection, takenAt: startedAt)
            try tools.run(
                "pg_dump",
                ["--format=custom", "--no-owner", "--no-privileges", "--snapshot=" + snapshot, "--file=" + dump])
        } catch let failed as PostgresTools.Failed {
            throw BackupError("cannot dump the PostgreSQL database: \(failed)")
        } catch let error as BackupError {
            throw error
        } catch {
            throw BackupError("cannot read the PostgreSQL database: \(error)")
        }
        manifest.files.insert(
            BackupManifest.File(
                path: BackupManifest.postgresDumpEntry, size: BackupReader.size(of: dump),
                sha256: try SHA256Stream.hashFile(at: dump)),
            at: 0)
        try writeArchive(manifest: manifest, database: dump, to: destination) { unlink($0) }
        return Result(
            path: destination, bytes: BackupReader.size(of: destination), seconds: WallClock.now() - startedAt,
            photoFiles: manifest.files.count - 1, manifest: manifest)
    }

    /// Schema, row counts and photo files, read in the exported snapshot (the dump's entry comes first, added after).
    private func postgresManifest(_ db: PostgresConnection, takenAt: Double) throws -> BackupManifest {
        let schema = try BackupSnapshotSQL.schemaVersion(db, migrationsTable: PostgresMigrator.tableName)
        let version = try db.scalar("SHOW server_version").string ?? ""
        let counts = try BackupSnapshotSQL.rowCounts(db, tables: BackupSnapshotSQL.tables(db))
        let (files, swept, missing) = try photoEntries(BackupSnapshotSQL.photos(db))
        return BackupManifest(
            schemaVersion: schema, sqliteVersion: "", createdAt: ISO8601.utc(seconds: takenAt), rowCounts: counts,
            files: files, sweptPhotos: swept, missingPhotos: missing, database: BackupManifest.postgresKind,
            postgresqlVersion: version)
    }

    /// The photo files the snapshot names that exist (each original with its thumbnail), the
    /// photos the platform already has whose files were swept, and those still needed but missing.
    func photoEntries(_ photos: [PhotoRow]) throws -> (files: [BackupManifest.File], swept: [String], missing: [String])
    {
        var files: [BackupManifest.File] = []
        var swept: [String] = []
        var missing: [String] = []
        for row in photos {
            guard let localID = row.localID, PhotoFiles.isValidID(localID) else { continue }
            let original = photosDirectory + "/" + localID
            if let size = Self.regularFileSize(original), let sha256 = row.sha256 {
                files.append(BackupManifest.File(path: "photos/" + localID, size: size, sha256: sha256))
            } else if row.state == "stored" {
                swept.append(localID)
                continue
            } else {
                missing.append(localID)
                continue
            }
            let thumbnail = original + ".thumb.jpg"
            if let size = Self.regularFileSize(thumbnail) {
                files.append(
                    BackupManifest.File(
                        path: "photos/\(localID).thumb.jpg", size: size,
                        sha256: try SHA256Stream.hashFile(at: thumbnail)))
            }
        }
        return (files, swept, missing)
    }
}
