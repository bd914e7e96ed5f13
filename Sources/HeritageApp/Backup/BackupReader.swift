import Basics
import FoundationEssentials
import PlatformClient
import SQLiteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a backup through once and checks all of it: the manifest first, every file's SHA-256 against
/// it, the trailer's checksum of the whole, then the unpacked database (`PRAGMA integrity_check`, its
/// schema no newer than this binary's, its row counts) and every photo it still needs. `har backup
/// verify` unpacks only the database, into a folder it removes; a restore unpacks everything.
struct BackupReader {
    struct Summary {
        let manifest: BackupManifest
        let archiveBytes: Int
        let photoFiles: Int
        let signature: BackupSignature.Status
    }

    let path: String
    /// Where the files go: the database only (`extractsPhotos` false) or the whole data folder.
    let destination: String
    let extractsPhotos: Bool
    /// `backup_key`: when set, an archive not signed with it is refused.
    var key: String?
    /// A backup's own check as it is made: a database a newer har migrated is still backed up whole.
    var allowsNewerSchema = false
    /// Only the backup being made reads its own `.partial`; anyone else is refused one.
    var isCheckOfOwnPartial = false

    func read() throws(BackupFailure) -> Summary {
        if path.hasSuffix(".partial") && !isCheckOfOwnPartial {
            throw .partial("\(path) is a backup still being written or one cut short (.partial): never a backup")
        }
        let archive = try ArchiveReader(path: path)
        guard let first = try archive.next(), first.name == BackupManifest.entryName else {
            throw .notABackup("\(path) is not a har backup: it does not begin with \(BackupManifest.entryName)")
        }
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(
                BackupManifest.self, from: Data(try archive.bytes(first, limit: BackupManifest.sizeLimit)))
        } catch let failure as BackupFailure {
            throw failure
        } catch {
            throw .notABackup("\(path): its manifest cannot be read (\(error))")
        }
        guard manifest.format == BackupManifest.formatName else {
            throw .notABackup("\(path): unknown backup format \"\(manifest.format)\"")
        }
        if !allowsNewerSchema { try Self.refuseNewer(schema: manifest.schemaVersion, what: "the backup's manifest") }
        var archived = Set<String>()
        for file in manifest.files {
            guard let entry = try archive.next() else {
                throw .truncated("\(path) ends before \(file.path): the backup is incomplete")
            }
            guard entry.name == file.path, entry.size == file.size, Self.isExpected(name: entry.name, in: manifest)
            else {
                throw .notABackup("\(path): found \(entry.name) where the manifest lists \(file.path)")
            }
            let digest = try copy(entry, from: archive)
            archive.record(digest: digest)
            guard Hex.encode(digest) == file.sha256 else {
                throw .checksumMismatch("\(path): \(file.path) does not match its SHA-256 in the manifest")
            }
            archived.insert(file.path)
        }
        let sealed = archive.seal()
        guard let last = try archive.next() else {
            throw .truncated("\(path) has no trailer: the backup is incomplete")
        }
        guard last.name == BackupTrailer.entryName,
            let trailer = try? JSONDecoder().decode(
                BackupTrailer.self, from: Data(try archive.bytes(last, limit: 4096)))
        else { throw .notABackup("\(path): \(last.name) where the trailer belongs") }
        guard trailer.sha256 == sealed, trailer.entries == manifest.files.count + 1 else {
            throw .checksumMismatch("\(path): the archive's checksum does not match its trailer (damaged)")
        }
        guard try archive.next() == nil else {
            throw .notABackup("\(path): entries after the trailer")
        }
        let signature = try BackupSignature.check(trailer, key: key, archive: path)
        guard archived.contains(manifest.databaseEntryName) else {
            throw .notABackup("\(path) holds no database")
        }
        try checkDatabase(manifest: manifest, archived: archived)
        return Summary(
            manifest: manifest, archiveBytes: Self.size(of: path),
            photoFiles: archived.count - 1, signature: signature)
    }

    /// Copies an entry to the destination when it goes there (else only hashes it); its SHA-256.
    private func copy(_ entry: ArchiveReader.Entry, from archive: ArchiveReader) throws(BackupFailure) -> [UInt8] {
        let digest = SHA256Stream()
        let keeps =
            entry.name == BackupManifest.databaseEntry || entry.name == BackupManifest.postgresDumpEntry
            || extractsPhotos
        var output: Int32 = -1
        if keeps {
            output = open(destination + "/" + entry.name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard output >= 0 else {
                throw .unreadable("cannot write \(destination)/\(entry.name): \(ArchiveWriter.reason())")
            }
        }
        defer { if output >= 0 { close(output) } }
        try archive.content(entry) { (chunk) throws(BackupFailure) in
            digest.update(chunk)
            guard output >= 0 else { return }
            var offset = 0
            while offset < chunk.count {
                let wrote = write(output, chunk.baseAddress.map { $0 + offset }, chunk.count - offset)
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else {
                    throw .unreadable("cannot write \(destination)/\(entry.name): \(ArchiveWriter.reason())")
                }
                offset += wrote
            }
        }
        if output >= 0, fsync(output) != 0 {
            throw .unreadable("cannot flush \(destination)/\(entry.name): \(ArchiveWriter.reason())")
        }
        return digest.finalizeBytes()
    }

    private func checkDatabase(manifest: BackupManifest, archived: Set<String>) throws(BackupFailure) {
        if manifest.isPostgres {
            return try checkDump(
                destination + "/" + BackupManifest.postgresDumpEntry, manifest: manifest, archived: archived)
        }
        let databasePath = destination + "/" + BackupManifest.databaseEntry
        do {
            let db = try Database(path: databasePath, mode: .readOnly, create: false)
            defer { db.close() }
            let problems = try db.query("PRAGMA integrity_check").compactMap { try $0.string(0) }
            guard problems == ["ok"] else {
                throw BackupFailure.databaseDamaged(
                    "\(path): the database fails its integrity check: " + problems.prefix(5).joined(separator: "; "))
            }
            let schema = try BackupSnapshotSQL.schemaVersion(db, migrationsTable: Migrator.tableName)
            if !allowsNewerSchema { try Self.refuseNewer(schema: schema, what: "the backup's database") }
            if !isCheckOfOwnPartial { try BackupSchemaCheck.check(db, version: schema, archive: path) }
            // The manifest's names are never pasted into SQL: only a table the database has, by its own name.
            let tables = Set(
                try db.query("SELECT name FROM sqlite_schema WHERE type = 'table'").compactMap { try $0.string(0) })
            for (table, count) in manifest.rowCounts.sorted(by: { $0.key < $1.key }) {
                guard tables.contains(table), table.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    throw BackupFailure.notABackup("\(path): the manifest counts a table the database does not have")
                }
                let counted = try BackupSnapshotSQL.rowCount(db, table: table) ?? -1
                guard counted == Int64(count) else {
                    throw BackupFailure.databaseDamaged(
                        "\(path): \(table) holds \(counted) rows, the manifest says \(count)")
                }
            }
            let missing = Set(manifest.missingPhotos)
            for localID in try BackupSnapshotSQL.unstoredPhotoIDs(db) {
                guard archived.contains("photos/" + localID) || missing.contains(localID) else {
                    throw BackupFailure.photoMissing(
                        "\(path): photo \(localID), not yet on the platform, is not in the backup")
                }
            }
        } catch let failure as BackupFailure {
            throw failure
        } catch {
            throw .databaseDamaged("\(path): the database cannot be read: \(error)")
        }
    }

    static func refuseNewer(schema: Int, what: String) throws(BackupFailure) {
        let known = AppMigrations.sqlite.last?.version ?? 0
        guard schema <= known else {
            throw .newerSchema(
                "\(what) has schema version \(schema), newer than this har's (\(known)): use the har that made it")
        }
    }

    /// The names a backup of ours holds: the database (of the manifest's kind), and photo files named
    /// by their UUIDs.
    static func isExpected(name: String, in manifest: BackupManifest) -> Bool {
        if name == manifest.databaseEntryName { return true }
        guard name.hasPrefix("photos/") else { return false }
        var file = String(name.dropFirst("photos/".count))
        if file.hasSuffix(".thumb.jpg") { file.removeLast(".thumb.jpg".count) }
        return PhotoFiles.isValidID(file)
    }

    static func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
