import FoundationEssentials

/// `har migrate sqlite-to-postgres --from DATA_DIR [--config FILE]`: moves a single node's data into the
/// PostgreSQL database of `database_url` (see `SQLiteToPostgres`). Run it with the node stopped.
enum MigrateCommand {
    static let usage = """
        Usage:
          har migrate --dry-run [--config FILE]
              lists the migrations har serve would apply to the configured database, and what it
              does first (a verified snapshot of SQLite; PostgreSQL wants --i-have-a-backup); changes nothing
          har migrate sqlite-to-postgres --from DATA_DIR [--config FILE]
              copies DATA_DIR/har.sqlite into the empty PostgreSQL database of database_url
              (HAR_DATABASE_URL): row ids kept, sequences set, row counts checked. Stop the node first;
              its photos stay in DATA_DIR.
        """

    static func main(_ arguments: [String]) -> Int32 {
        if arguments.contains("--dry-run") { return MigrateDryRun.main(arguments.filter { $0 != "--dry-run" }) }
        guard arguments.first == "sqlite-to-postgres", let fromIndex = arguments.firstIndex(of: "--from"),
            fromIndex + 1 < arguments.count
        else {
            print(usage)
            return arguments.contains("--help") || arguments.contains("-h") ? 0 : 64
        }
        let from = arguments[fromIndex + 1]
        var options: [String] = []
        if let index = arguments.firstIndex(of: "--config") {
            options = Array(arguments[index..<min(index + 2, arguments.count)])
        }
        let configuration: Configuration
        do {
            configuration = try Command.loadConfiguration(options)
        } catch {
            Command.printError("\(error)")
            return 78
        }
        guard let url = configuration.databaseURL else {
            Command.printError("database_url (HAR_DATABASE_URL) names the PostgreSQL database to copy into")
            return 78
        }
        let path = from + "/har.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            Command.printError("no database at \(path)")
            return 66
        }
        do {
            let source = try SQLiteDatabase(path: path, migrations: AppMigrations.sqlite)
            defer { source.close() }
            let target = try PostgresDatabase(
                url: url, poolSize: 1, migrations: AppMigrations.postgres)
            defer { target.close() }
            let copied = try SQLiteToPostgres.copy(from: source, to: target)
            for table in SQLiteToPostgres.tables {
                print("\(table)\t\(copied.rows[table] ?? 0)")
            }
            print("copied and checked")
            return 0
        } catch {
            Command.printError("\(error)")
            return 1
        }
    }
}
