import FoundationEssentials
import SQLiteStorage

/// `har migrate --dry-run [--config FILE]`: the migrations `har serve` would apply to the configured
/// database, and what it would do first; changes nothing.
enum MigrateDryRun {
    static func main(_ arguments: [String]) -> Int32 {
        let (options, _) = Command.separatingConfigOption(arguments)
        let configuration: Configuration
        do {
            configuration = try Command.loadConfiguration(options)
        } catch {
            Command.printError("\(error)")
            return 78
        }
        do {
            let isPostgres = configuration.databaseURL != nil
            let known = isPostgres ? AppMigrations.postgres : AppMigrations.sqlite
            let newest = known.map(\.version).max() ?? 0
            let due: PendingMigrations
            if let url = configuration.databaseURL {
                due = try PostgresBackupGuard.pending(url: url, known: known)
            } else {
                let path = configuration.dataDir + "/har.sqlite"
                due =
                    try MigrationSnapshot.pending(path: path, known: known)
                    ?? PendingMigrations(applied: [], known: known)
            }
            if due.current > newest {
                print(
                    "the database is at schema v\(due.current), newer than this binary (v\(newest)): har serve refuses it"
                )
                return 1
            }
            guard !due.pending.isEmpty else {
                print("nothing to apply: the database is at schema v\(due.current), this binary's")
                return 0
            }
            print("the database is at schema v\(due.current); har serve would apply:")
            for migration in due.pending { print("  v\(migration.version)\t\(migration.name)") }
            print(first(due, isPostgres: isPostgres, dataDir: configuration.dataDir))
            return 0
        } catch {
            Command.printError("\(error)")
            return 1
        }
    }

    static func first(_ due: PendingMigrations, isPostgres: Bool, dataDir: String) -> String {
        if due.isFresh { return "a new database: nothing to snapshot first" }
        if isPostgres {
            return "first: take pg_dump -Fc of the database, then start with har serve --i-have-a-backup "
                + "(or database_backup_taken: true)"
        }
        return "first: a snapshot in \(dataDir)/snapshots/, checked with PRAGMA integrity_check"
    }
}
