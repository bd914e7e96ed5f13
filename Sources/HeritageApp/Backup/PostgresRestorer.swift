import Basics
import FoundationEssentials
import PostgresStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `har backup restore` with `database_url`: into an empty PostgreSQL database (a database that
/// holds any table is refused: nodes would be using it, or it is not the one meant) and the photo
/// folder. The archive is unpacked and checked whole into `PHOTOS.restoring-STAMP` beside the photo
/// folder first; then `pg_restore` loads the dump in one transaction, the schema is migrated to this
/// binary's, what was on its way to the platform is put into "reconcile before sending" as on SQLite
/// (`RestoreReconciliation`), and only then do the restored photos take the photo folder's name, the
/// old folder kept as `PHOTOS.before-restore-STAMP`.
struct PostgresRestorer {
    let databaseURL: String
    let photosDirectory: String
    /// Who restores, for the audit log (`cli:$USER`).
    var actor = "cli:operator"
    /// `backup_key`: an archive not signed with it is refused.
    var key: String?
    let say: (String) -> Void

    func restore(from archive: String, now: Double) throws -> Int32 {
        let connection = try PostgresConnection.forBackup(databaseURL)
        defer { connection.close() }
        let relations =
            try connection.scalar(
                """
                SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
                  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
                """
            ).int ?? 0
        let database = try connection.scalar("SELECT current_database()").string ?? ""
        guard relations == 0 else {
            throw BackupRestorer.Refused(
                description: "the PostgreSQL database \(database) is not empty: a restore goes only into an empty "
                    + "database (stop every node, then create a new one, or drop and create this one)")
        }
        let photos = BackupRestorer.trimmed(photosDirectory)
        let stamp = ISO8601.utc(seconds: now).filter { $0 != "-" && $0 != ":" }
        let staging = photos + ".restoring-" + stamp
        let before = photos + ".before-restore-" + stamp
        guard mkdir(staging, 0o700) == 0, mkdir(staging + "/photos", 0o700) == 0 else {
            throw BackupError("cannot create \(staging): \(ArchiveWriter.reason())")
        }
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let summary = try BackupReader(path: archive, destination: staging, extractsPhotos: true, key: key).read()
        guard summary.manifest.isPostgres else {
            throw BackupError(
                "\(archive) is a backup of a SQLite data folder: restore it into a data folder (without "
                    + "database_url), then copy it with har migrate sqlite-to-postgres")
        }
        let dump = staging + "/" + BackupManifest.postgresDumpEntry
        let list = staging + "/objects.list"
        try restoreList(of: dump, into: list, connection: connection, version: summary.manifest.schemaVersion)
        do {
            try PostgresTools(databaseURL: databaseURL).run(
                "pg_restore",
                [
                    "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--dbname=" + database,
                    "--use-list=" + list, dump,
                ])
        } catch {
            throw BackupError("pg_restore could not load the dump (the database is left as it was): \(error)")
        }
        try PostgresMigrator.apply(AppMigrations.postgres, to: connection)
        let journal = RevocationJournal(path: photos + "/" + RevocationJournal.fileName)
        let counts = try RestoreReconciliation.apply(
            to: connection, now: now,
            restore: try BackupRestorer.restoreFacts(summary.manifest, journal: journal, actor: actor, say: say))
        let exists = access(photos, F_OK) == 0
        if exists {
            guard rename(photos, before) == 0 else {
                throw BackupError(
                    "the database is restored, but \(photos) cannot be moved aside (\(ArchiveWriter.reason())): "
                        + "move it, then move \(staging)/photos there")
            }
        }
        if exists, access(before + "/" + RevocationJournal.fileName, F_OK) == 0 {
            rename(before + "/" + RevocationJournal.fileName, staging + "/photos/" + RevocationJournal.fileName)
        }
        guard rename(staging + "/photos", photos) == 0 else {
            throw BackupError(
                "the database is restored, but the photos cannot be moved to \(photos) (\(ArchiveWriter.reason()))")
        }
        _ = PhotoFiles.flush(BackupCreator.folder(of: photos))
        let manifest = summary.manifest
        say(
            "restored \(archive) (taken \(manifest.createdAt), schema \(manifest.schemaVersion), PostgreSQL "
                + "\(manifest.postgresqlVersion ?? "?"), \(manifest.rowCounts["reports"] ?? 0) reports, "
                + "\(summary.photoFiles) photo files) into the database \(database) and \(photos)")
        if exists { say("the photo folder as it was is kept in \(before)") }
        say("restored into an empty database: what the backup rolls back is in the database it replaces")
        say(
            "before sending anything again the upload worker asks the platform what it already holds: "
                + "\(counts.reports) reports, \(counts.photos) photos")
        BackupRestorer.sayWhatIsVoid(counts, takenAt: manifest.createdAt, say: say)
        return 0
    }

    /// The dump's object list, refused when it names an object the migrations do not make
    /// (`PostgresDumpObjects`), else written to `path` for `pg_restore --use-list`.
    private func restoreList(of dump: String, into path: String, connection: PostgresConnection, version: Int) throws {
        var lines: [String] = []
        do {
            try PostgresTools(databaseURL: nil).run("pg_restore", ["--list", dump]) { line in
                lines.append(String(decoding: line, as: UTF8.self))
            }
        } catch {
            throw BackupFailure.databaseDamaged("the PostgreSQL dump's object list cannot be read: \(error)")
        }
        let foreign = PostgresDumpObjects.foreign(
            in: lines, expected: try PostgresDumpObjects.expected(connection, version: version))
        guard foreign.isEmpty else {
            throw BackupFailure.foreignSchema(
                "the PostgreSQL dump holds objects har's migrations do not make at version \(version) ("
                    + foreign.prefix(5).joined(separator: "; ") + "): refused, nothing restored")
        }
        let descriptor = ArchiveWriter.createPrivate(path)
        guard descriptor >= 0 else { throw BackupError("cannot create \(path): \(ArchiveWriter.reason())") }
        defer { close(descriptor) }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BackupError("cannot write \(path): \(ArchiveWriter.reason())")
        }
    }
}
