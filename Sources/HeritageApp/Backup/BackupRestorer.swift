import Basics
import FoundationEssentials
import SQLiteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `har backup restore`: unpacks and checks the whole backup into `DATA.restoring-STAMP` beside the
/// data folder (same filesystem), migrates it to this binary's schema, puts what was on its way to the
/// platform into "reconcile before sending" (`RestoreReconciliation`), then swaps the two folders in
/// one `renameat2(RENAME_EXCHANGE)` and keeps the old one as `DATA.before-restore-STAMP`. Refused while
/// a `har serve` holds the data folder's lock (`har.lock`, `DataFolderLock`).
struct BackupRestorer {
    /// Not in a backup, and not the application's state: the embedded platform's own data and key,
    /// and the TLS files `har tls` made. They move over from the old folder as they are.
    /// The record of revocations (`RevocationJournal`) moves over too: it is what the restore re-applies.
    static let carriedOver = ["platform", "platform-app.json", "tls", RevocationJournal.fileName]

    let dataDir: String
    /// Who restores, for the audit log (`cli:$USER`).
    var actor = "cli:operator"
    /// `backup_key`: an archive not signed with it is refused.
    var key: String?
    let say: (String) -> Void

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    func restore(from archive: String, now: Double) throws -> Int32 {
        let dataDir = Self.trimmed(dataDir)
        let stamp = ISO8601.utc(seconds: now).filter { $0 != "-" && $0 != ":" }
        let staging = dataDir + ".restoring-" + stamp
        let before = dataDir + ".before-restore-" + stamp
        let exists = access(dataDir, F_OK) == 0
        var oldLock: DataFolderLock?
        if exists {
            do {
                oldLock = try DataFolderLock(dataDir: dataDir)
            } catch {
                throw Refused(description: "a har serve is using \(dataDir) (it holds har.lock): stop it, then restore")
            }
        }
        defer { oldLock?.release() }
        guard mkdir(staging, 0o700) == 0, mkdir(staging + "/photos", 0o700) == 0 else {
            throw BackupError("cannot create \(staging): \(ArchiveWriter.reason())")
        }
        let newLock: DataFolderLock
        let summary: BackupReader.Summary
        let counts: RestoreReconciliation.Counts
        do {
            newLock = try DataFolderLock(dataDir: staging)
            summary = try BackupReader(path: archive, destination: staging, extractsPhotos: true, key: key).read()
            guard !summary.manifest.isPostgres else {
                throw BackupError(
                    "\(archive) is a backup of a PostgreSQL database: restore it with database_url set, into an "
                        + "empty database")
            }
            let journal = RevocationJournal(path: dataDir + "/" + RevocationJournal.fileName)
            counts = try prepareDatabase(
                staging + "/har.sqlite", now: now,
                restore: try Self.restoreFacts(summary.manifest, journal: journal, actor: actor, say: say))
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        defer { newLock.release() }
        let rolledBack = exists ? reportRollback(old: dataDir + "/har.sqlite", restored: staging + "/har.sqlite") : nil
        if exists {
            try swap(staging, dataDir, keepingOldAs: before)
        } else {
            guard rename(staging, dataDir) == 0 else {
                throw BackupError("cannot rename \(staging) to \(dataDir): \(ArchiveWriter.reason())")
            }
        }
        _ = PhotoFiles.flush(BackupCreator.folder(of: dataDir))
        let manifest = summary.manifest
        say(
            "restored \(archive) (taken \(manifest.createdAt), schema \(manifest.schemaVersion), "
                + "\(manifest.rowCounts["reports"] ?? 0) reports, \(summary.photoFiles) photo files) into \(dataDir)")
        if exists { say("the data folder as it was is kept in \(before)") }
        if let rolledBack {
            say(rolledBack)
        } else if !exists {
            say("no earlier data folder: nothing rolled back")
        }
        say(
            "before sending anything again the upload worker asks the platform what it already holds: "
                + "\(counts.reports) reports, \(counts.photos) photos")
        Self.sayWhatIsVoid(counts, takenAt: manifest.createdAt, say: say)
        return 0
    }

    /// What the restore re-applies: the revocations recorded since the backup's moment.
    static func restoreFacts(
        _ manifest: BackupManifest, journal: RevocationJournal, actor: String, say: (String) -> Void
    ) throws -> RestoreReconciliation.Restore {
        // Unreadable moment: every recorded revocation is made again (failing closed).
        let since = ISO8601.parse(manifest.createdAt)?.timeIntervalSince1970.rounded(.down) ?? 0
        let (entries, unreadable) = try journal.entries(since: since)
        if unreadable > 0 { say("note: \(unreadable) lines of \(journal.path) cannot be read and are skipped") }
        return RestoreReconciliation.Restore(actor: actor, backupTakenAt: manifest.createdAt, revocations: entries)
    }

    /// The restore's word on sessions, kiosks and revocations (docs/OPERATIONS.md).
    static func sayWhatIsVoid(_ counts: RestoreReconciliation.Counts, takenAt: String, say: (String) -> Void) {
        say(
            "every sign-in and kiosk tablet from before the restore is void (\(counts.sessions) sessions, "
                + "\(counts.kioskCredentials) kiosk credentials): people sign in again; each kiosk's tablet "
                + "enrols again with a new link from the Kiosks page (/review/kiosks)")
        say(
            counts.revokedAgain.isEmpty
                ? "revoked again: nothing revoked since the backup was recorded"
                : "revoked again, as they were revoked after the backup: "
                    + counts.revokedAgain.joined(separator: ", "))
        say("the audit log records the restore of the backup of \(takenAt)")
    }

    /// The restored database at this binary's schema, reconciled, flushed.
    private func prepareDatabase(_ path: String, now: Double, restore: RestoreReconciliation.Restore) throws
        -> RestoreReconciliation.Counts
    {
        let db = try Database(path: path, mode: .readWrite, create: false)
        defer { db.close() }
        _ = try db.scalar("PRAGMA journal_mode = WAL")
        try Migrator.apply(AppMigrations.sqlite, to: db)
        let counts = try RestoreReconciliation.apply(to: db, now: now, restore: restore)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        _ = PhotoFiles.flush(path)
        return counts
    }

    /// What the restore takes back, as a few lines; says so when the old database cannot be read.
    private func reportRollback(old: String, restored: String) -> String {
        guard access(old, F_OK) == 0 else { return "the old data folder had no database: nothing rolled back" }
        do {
            let oldDB = try Database(path: old, mode: .readOnly, create: false)
            defer { oldDB.close() }
            let restoredDB = try Database(path: restored, mode: .readOnly, create: false)
            defer { restoredDB.close() }
            let reports = try RestoreReconciliation.rolledBack(old: oldDB, restored: restoredDB)
            guard !reports.isEmpty else { return "rolled back: no report filed since the backup" }
            var lines = [
                "rolled back: \(reports.count) reports filed since the backup are not in it (they stay in the "
                    + "kept folder; the platform has those it received):"
            ]
            for report in reports.prefix(50) {
                lines.append(
                    "  \(report.localID)  \(ISO8601.utc(seconds: report.submittedAt))  \(report.state)  \(report.name)")
            }
            if reports.count > 50 { lines.append("  … and \(reports.count - 50) more") }
            return lines.joined(separator: "\n")
        } catch {
            return "the old database cannot be read (\(error)): what the restore rolls back is unknown"
        }
    }

    /// Moves the carried-over entries into the new folder, then exchanges the two folders at once;
    /// where the filesystem cannot exchange, two renames (the old folder first).
    private func swap(_ staging: String, _ dataDir: String, keepingOldAs before: String) throws {
        var moved: [String] = []
        for name in Self.carriedOver where access(dataDir + "/" + name, F_OK) == 0 {
            guard rename(dataDir + "/" + name, staging + "/" + name) == 0 else {
                for back in moved { rename(staging + "/" + back, dataDir + "/" + back) }
                throw BackupError("cannot move \(dataDir)/\(name) into the restored folder: \(ArchiveWriter.reason())")
            }
            moved.append(name)
        }
        if Self.exchange(staging, dataDir) {
            guard rename(staging, before) == 0 else {
                throw BackupError(
                    "restored, but the old data folder is left at \(staging): \(ArchiveWriter.reason())")
            }
            return
        }
        guard rename(dataDir, before) == 0 else {
            for back in moved { rename(staging + "/" + back, dataDir + "/" + back) }
            throw BackupError("cannot move \(dataDir) aside: \(ArchiveWriter.reason())")
        }
        guard rename(staging, dataDir) == 0 else {
            throw BackupError(
                "the old data folder is at \(before) and the restored one at \(staging); rename it to \(dataDir): "
                    + ArchiveWriter.reason())
        }
    }

    private typealias RenameAt2 =
        @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// `renameat2(…, RENAME_EXCHANGE)`, looked up at run time: Swift's Glibc module does not declare it.
    static func exchange(_ first: String, _ second: String) -> Bool {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        return renameat2(AT_FDCWD, first, AT_FDCWD, second, 2) == 0
    }

    static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
