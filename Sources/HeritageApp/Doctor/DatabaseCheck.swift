import FoundationEssentials
import PostgresStorage
import SQLiteStorage

/// The database reachable, and its schema against this binary's migrations: a database migrated by a
/// newer binary must not be run by this one (start refuses it too); one behind is migrated at start.
enum DatabaseCheck {
    static let subject = "database"

    static func run(_ configuration: Configuration) -> DoctorFinding {
        if let url = configuration.databaseURL { return postgres(url: url) }
        let path = configuration.dataDir + "/har.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            return .ok(subject, "no \(path) yet; har serve creates it at schema version \(AppMigrations.newest)")
        }
        do {
            let database = try Database(path: path, mode: .readOnly, create: false)
            defer { database.close() }
            let applied = try Migrator.appliedVersions(in: database)
            return judge(applied: applied, known: AppMigrations.sqlite, where: path)
        } catch {
            return .fail(
                subject, "cannot read \(path): \(error)",
                do: "check its owner and mode (0600, the server's user), or restore a snapshot or backup")
        }
    }

    static func postgres(url: String) -> DoctorFinding {
        do {
            let connection = try PostgresConnection(url)
            defer { connection.close() }
            let tables = try connection.scalar(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = '\(PostgresMigrator.tableName)'")
            let applied = tables.int == 0 ? [] : try PostgresMigrator.appliedVersions(connection)
            return judge(applied: applied, known: AppMigrations.postgres, where: "PostgreSQL (database_url)")
        } catch {
            // The URL may hold a password: named by its key, never shown.
            return .fail(
                subject, "cannot query PostgreSQL at database_url: \(error)",
                do: "check database_url, the server, and pg_hba.conf")
        }
    }

    /// The schema's versions against the binary's: newer = FAIL, behind = WARN (start migrates it).
    static func judge(applied: Set<Int>, known: [Migration], where place: String) -> DoctorFinding {
        let newestKnown = newest(known)
        let knownVersions = Set(known.map(\.version))
        if let newestApplied = applied.max(), newestApplied > newestKnown {
            return .fail(
                subject,
                "\(place) is at schema version \(newestApplied), newer than this binary's \(newestKnown)",
                do: "install the newer har again, or restore the snapshot taken before that upgrade (docs/INSTALL.md)")
        }
        if let unknown = applied.subtracting(knownVersions).min() {
            return .fail(
                subject, "\(place) records migration \(unknown), which this binary does not define",
                do: "run the har that migrated it, or restore a snapshot")
        }
        let pending = knownVersions.subtracting(applied).sorted()
        if !pending.isEmpty {
            return .warn(
                subject,
                "\(place) is at schema version \(applied.max() ?? 0); this binary has \(pending.count) "
                    + "migration(s) to apply (\(pending.map(String.init).joined(separator: ", ")))",
                do: "har migrate --dry-run lists them; har serve applies them at start, after a snapshot")
        }
        return .ok(subject, "\(place) is at schema version \(newestKnown), this binary's")
    }

    static func newest(_ migrations: [Migration]) -> Int { migrations.map(\.version).max() ?? 0 }
}
