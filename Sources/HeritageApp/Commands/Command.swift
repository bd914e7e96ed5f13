import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The `har` command line: subcommands, their options, and the process's exit codes.
public enum Command {
    public static let version = "0.1.0"

    static let usage = """
        Heritage at Risk for the web \(version)

        Usage:
          har serve [--config FILE] [--i-have-a-backup]
                                         the web application (stops cleanly on SIGINT or SIGTERM); the
                                         flag lets it migrate PostgreSQL after you took a pg_dump
          har platform [--config FILE]   the local Heritage Observatory platform, for tests and offline use
          har outbox [--config FILE] list|counts|retry ID|retry --all|hold ID|release ID
                                         the upload queue (see har outbox --help)
          har users [--config FILE] list|grant EMAIL coordinator|admin|revoke EMAIL
                                         coordinators' roles (see har users --help)
          har kiosk [--config FILE] create --site NAME [--lat X --lon Y]|list|revoke ID
                                         kiosks at sites; create prints the enrolment URL (see har kiosk --help)
          har tls self-signed --host NAME-OR-IP [--host …] [--days N] [--dir DIR]
                                         HTTPS for tablets on a LAN (see har tls --help)
          har backup [--config FILE] create [--to FILE]|verify FILE|restore FILE [--data-dir DIR]
                                         backups of the data folder (see har backup --help, docs/OPERATIONS.md)
          har sites [--config FILE] import FILE [--ref-field NAME …]|list [--near LAT,LON] [--limit N]
                                         the register of heritage sites: import GeoJSON or CSV, list it
                                         (see har sites --help, docs/SITES.md)
          har mail [--config FILE] test EMAIL [--language en|fr]
                                         one test message through smtp_url (see docs/NOTIFICATIONS.md)
          har migrate sqlite-to-postgres --from DATA_DIR
                                         a single node's data into database_url's PostgreSQL
          har migrate --dry-run [--config FILE]
                                         the migrations har serve would apply, applying none
          har doctor [--config FILE]     checks before and after installing: one line each, OK/WARN/FAIL;
                                         exit 0 all OK, 1 warnings, 2 failures
          har --version
          har --help | har serve --help

        Configuration: built-in defaults, then --config FILE (else ./config/default.json when present),
        then HAR_* environment variables, which win. Keys (each is also a key of the config file, in
        lower case without HAR_):
        """

    /// Runs the command line and returns the process's exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        Signals.block()
        var rest = Array(arguments.dropFirst())
        guard let subcommand = rest.first else {
            printHelp()
            return 64
        }
        rest.removeFirst()
        switch subcommand {
        case "--help", "-h", "help":
            printHelp()
            return 0
        case "--version":
            print(version)
            return 0
        case "outbox":
            return OutboxCommand.main(rest)
        case "tls":
            return TLSCommand.main(rest)
        case "migrate":
            return MigrateCommand.main(rest)
        case "doctor":
            return DoctorCommand.main(rest)
        case "users":
            return UsersCommand.main(rest)
        case "kiosk":
            return KioskCommand.main(rest)
        case "backup":
            return BackupCommand.main(rest)
        case "mail":
            return MailCommand.main(rest)
        case "sites":
            return SitesCommand.main(rest)
        case "serve", "platform":
            if rest.contains("--help") || rest.contains("-h") {
                printHelp()
                return 0
            }
            // PostgreSQL's migrations wait for the operator's word that a backup exists (PostgresBackupGuard).
            let backupTaken = subcommand == "serve" && rest.contains("--i-have-a-backup")
            var configuration: Configuration
            do {
                configuration = try loadConfiguration(rest.filter { !backupTaken || $0 != "--i-have-a-backup" })
                if backupTaken { configuration.databaseBackupTaken = true }
            } catch {
                printError("\(error)")
                return 78  // EX_CONFIG
            }
            return subcommand == "serve" ? Serve.run(configuration) : PlatformCommand.run(configuration)
        default:
            printError("unknown command \"\(subcommand)\"; see har --help")
            return 64  // EX_USAGE
        }
    }

    /// A subcommand's words split into `--config FILE` (for `loadConfiguration`) and the rest, in order.
    /// The frame of a command that works on the stores (`har outbox`, `har users`, `har kiosk`): `--config`
    /// split off, usage on `--help` or nothing (64, EX_USAGE), the configuration (78, EX_CONFIG), the
    /// database (66, EX_NOINPUT, when a data folder has none), the stores opened for `body` and closed
    /// after it; an error thrown by `body` is printed and exits 1.
    static func runOnStores(
        _ arguments: [String], usage: String,
        _ body: (_ action: [String], _ stores: Stores, _ configuration: Configuration) throws -> Int32
    ) -> Int32 {
        let (options, action) = separatingConfigOption(arguments)
        if action.contains("--help") || action.contains("-h") || action.isEmpty {
            print(usage)
            return action.isEmpty ? 64 : 0
        }
        let configuration: Configuration
        do {
            configuration = try loadConfiguration(options)
        } catch {
            printError("\(error)")
            return 78
        }
        let path = configuration.dataDir + "/har.sqlite"
        guard configuration.databaseURL != nil || FileManager.default.fileExists(atPath: path) else {
            printError("no database at \(path) (is HAR_DATA_DIR right?)")
            return 66
        }
        do {
            let stores = try Stores.open(configuration: configuration)
            defer { stores.close() }
            return try body(action, stores, configuration)
        } catch {
            printError("\(error)")
            return 1
        }
    }

    /// Who a command's change is audited as: the operator `cli:$USER`.
    static var operatorActor: String { "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? "operator") }

    static func separatingConfigOption(_ arguments: [String]) -> (options: [String], action: [String]) {
        var options: [String] = []
        var action: [String] = []
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--config" {
                options += arguments[index..<min(index + 2, arguments.count)]
                index += 2
            } else {
                action.append(arguments[index])
                index += 1
            }
        }
        return (options, action)
    }

    static func loadConfiguration(_ options: [String]) throws -> Configuration {
        var file: String?
        var index = 0
        while index < options.count {
            switch options[index] {
            case "--config":
                guard index + 1 < options.count else { throw ConfigurationError("--config needs a file") }
                file = options[index + 1]
                index += 2
            default:
                throw ConfigurationError("unknown option \(options[index]); see har --help")
            }
        }
        if file == nil, FileManager.default.fileExists(atPath: "config/default.json") {
            file = "config/default.json"
        }
        return try Configuration.load(file: file, environment: ProcessInfo.processInfo.environment)
    }

    static func printHelp() {
        print(usage)
        for line in Configuration.helpLines { print(line) }
    }

    static func printError(_ message: String) {
        Log.write("har: \(message)\n", to: STDERR_FILENO)
    }
}

/// Waits for SIGINT or SIGTERM. The two are blocked in every thread (threads inherit the mask of the
/// thread that creates them, so this runs before any other thread starts) and taken here with
/// sigwait, so no signal handler runs in an arbitrary thread.
enum Signals {
    static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Blocks the calling thread until SIGINT or SIGTERM arrives; returns the signal.
    static func wait() -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        var received: Int32 = 0
        sigwait(&set, &received)
        return received
    }
}
