// Upgrade: what happens before a new binary changes an existing database's schema: a verified SQLite
// snapshot to go back to, PostgreSQL's backup confirmed, and `har migrate --dry-run`.
import Basics
import FoundationEssentials
import SQLiteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The migrations a database lacks, as this binary would apply them.
struct PendingMigrations: Sendable, Equatable {
    /// The newest version the database records (0 for a database that has none yet).
    let current: Int
    let pending: [Migration]
    /// Whether the database holds nothing yet (nothing to lose, nothing to snapshot).
    let isFresh: Bool

    init(applied: Set<Int>, known: [Migration]) {
        current = applied.max() ?? 0
        pending = known.filter { !applied.contains($0.version) }.sorted { $0.version < $1.version }
        isFresh = applied.isEmpty
    }

    /// `v19 add_things, v20 other` for logs and refusals.
    var summary: String { pending.map { "v\($0.version) \($0.name)" }.joined(separator: ", ") }
}

/// Before `har serve` (or any command that opens the stores) migrates the data folder's SQLite database,
/// a copy of it as it is (`VACUUM INTO`, consistent even while another process reads or writes), checked
/// with `PRAGMA integrity_check`, in `<data_dir>/snapshots/har-before-vN-TIMESTAMP.sqlite`. Going back a
/// version is then: stop, reinstall the previous package, copy the snapshot over `har.sqlite`.
enum MigrationSnapshot {
    /// What the SQLite database at `path` lacks; nil when there is no database yet.
    static func pending(path: String, known: [Migration]) throws -> PendingMigrations? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0 else { return nil }
        let database = try Database(path: path, mode: .readOnly, create: false)
        defer { database.close() }
        return PendingMigrations(applied: try Migrator.appliedVersions(in: database), known: known)
    }

    /// Writes and checks the snapshot when a migration is due; returns its path (nil: none was due).
    /// Throws when it cannot, and then nothing is migrated.
    @discardableResult
    static func takeIfDue(
        path: String, snapshotsDirectory: String, known: [Migration], log: Log, now: Double = WallClock.now()
    ) throws -> String? {
        guard let due = try pending(path: path, known: known), !due.isFresh, let first = due.pending.first,
            due.current < (known.map(\.version).max() ?? 0)
        else { return nil }
        try DataFolder.prepare(snapshotsDirectory)
        let stamp = ISO8601.utc(seconds: now, fractionDigits: 0).filter { $0.isNumber || $0 == "T" || $0 == "Z" }
        let target = "\(snapshotsDirectory)/har-before-v\(first.version)-\(stamp).sqlite"
        do {
            let database = try Database(path: path, create: false)
            defer { database.close() }
            try database.run("VACUUM INTO ?", .text(target))
            chmod(target, 0o600)
            try verify(snapshot: target, expectedVersion: due.current)
        } catch {
            unlink(target)
            throw ConfigurationError(
                "cannot snapshot \(path) before applying \(due.summary) (\(error)); nothing was migrated. "
                    + "Free space in \(snapshotsDirectory), or check the database with har doctor")
        }
        log.info(
            "database at schema v\(due.current); before applying \(due.summary) a snapshot was written and "
                + "passed integrity_check: \(target) (to go back: stop, reinstall the previous version, "
                + "copy it over \(path))")
        return target
    }

    /// `PRAGMA integrity_check` says ok, and the copy records the schema the original had.
    static func verify(snapshot: String, expectedVersion: Int) throws {
        let copy = try Database(path: snapshot, mode: .readOnly, create: false)
        defer { copy.close() }
        let verdict = try copy.query("PRAGMA integrity_check").compactMap { try $0.string(0) }
        guard verdict == ["ok"] else {
            throw ConfigurationError("the snapshot fails integrity_check: \(verdict.prefix(3).joined(separator: "; "))")
        }
        let recorded = try Migrator.appliedVersions(in: copy).max() ?? 0
        guard recorded == expectedVersion else {
            throw ConfigurationError("the snapshot records schema v\(recorded), not v\(expectedVersion)")
        }
    }
}
