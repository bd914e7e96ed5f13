import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `har backup create|verify|restore` (docs/OPERATIONS.md). Exit status: 0 done; 64 usage; 78
/// configuration; 66 a file cannot be read; 10–16 a backup refused by its check (`BackupFailure`);
/// 75 a restore refused because a server holds the data folder; 1 anything else.
enum BackupCommand {
    static let usage = """
        Usage:
          har backup [--config FILE] create [--to FILE]
              one archive of a consistent database snapshot (SQLite, or pg_dump -Fc with
              database_url) and the photos it names, written to
              FILE.partial, checked, then renamed to FILE (default: backup_dir, else the current
              folder, har-backup-YYYYMMDDTHHMMSSZ.tar); works while har serve runs
          har backup verify FILE
              checks a backup without a server: checksums, the database's integrity and schema, photos
          har backup [--config FILE] restore FILE [--data-dir DIR]
              into a stopped server's data folder (data_dir, or DIR), keeping the old one beside it;
              with database_url, into an empty PostgreSQL database and photo_dir (the old folder kept)
        """

    static func main(_ arguments: [String]) -> Int32 {
        let (options, action) = Command.separatingConfigOption(arguments)
        guard let verb = action.first, !action.contains("--help"), !action.contains("-h") else {
            print(usage)
            return action.isEmpty ? 64 : 0
        }
        let configuration: Configuration
        do {
            configuration = try Command.loadConfiguration(options)
        } catch {
            Command.printError("\(error)")
            return 78
        }
        let rest = Array(action.dropFirst())
        switch (verb, rest.count) {
        case ("create", 0),
            ("create", 2) where rest[0] == "--to":
            return create(configuration, to: rest.count == 2 ? rest[1] : nil)
        case ("verify", 1):
            return verify(rest[0], key: configuration.backupKey)
        case ("restore", 1),
            ("restore", 3) where rest[1] == "--data-dir":
            var configuration = configuration
            if rest.count == 3 { configuration.dataDir = rest[2] }
            return restore(rest[0], configuration: configuration)
        default:
            Command.printError("unknown or incomplete backup command; see har backup --help")
            return 64
        }
    }

    /// The file name of a backup made now, in `folder`.
    static func defaultPath(in folder: String, now: Double) -> String {
        folder + "/har-backup-" + ISO8601.utc(seconds: now).filter { $0 != "-" && $0 != ":" } + ".tar"
    }

    private static func create(_ configuration: Configuration, to destination: String?) -> Int32 {
        let path = destination ?? defaultPath(in: configuration.backupDir ?? ".", now: WallClock.now())
        do {
            if destination == nil, let folder = configuration.backupDir { try DataFolder.prepare(folder) }
            let result = try BackupCreator(configuration: configuration).create(to: path)
            print(
                "backup \(result.path): \(result.bytes) bytes, database and \(result.photoFiles) photo files, "
                    + "checked, in \((result.seconds * 10).rounded() / 10) s")
            if !result.manifest.missingPhotos.isEmpty {
                Command.printError(
                    "warning: \(result.manifest.missingPhotos.count) photos not yet on the platform had no file "
                        + "in the data folder (listed in the manifest's missing_photos)")
            }
            return 0
        } catch {
            Command.printError("backup failed: \(error)")
            return 1
        }
    }

    private static func verify(_ path: String, key: String?) -> Int32 {
        let scratch: String
        do {
            scratch = try ArchiveWriter.makePrivateFolder(
                in: ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp", prefix: "har-verify-")
        } catch {
            Command.printError("\(error)")
            return 1
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            let summary = try BackupReader(path: path, destination: scratch, extractsPhotos: false, key: key).read()
            let manifest = summary.manifest
            print(
                "\(path): OK: taken \(manifest.createdAt) by har \(manifest.appVersion), schema "
                    + "\(manifest.schemaVersion), "
                    + (manifest.isPostgres
                        ? "PostgreSQL \(manifest.postgresqlVersion ?? "?") (pg_dump), "
                        : "SQLite \(manifest.sqliteVersion), ")
                    + "\(manifest.rowCounts["reports"] ?? 0) reports, \(manifest.rowCounts["photos"] ?? 0) photos, "
                    + "\(summary.photoFiles) photo files, \(summary.archiveBytes) bytes")
            if !manifest.missingPhotos.isEmpty {
                print("note: \(manifest.missingPhotos.count) photos were already missing from the data folder")
            }
            switch summary.signature {
            case .checked: print("signature: made with backup_key")
            case .unsigned:
                print("signature: none (no backup_key set: anyone who can write the file could have made it)")
            case .notChecked: print("signature: present, not checked (no backup_key set)")
            }
            return 0
        } catch {
            Command.printError("\(error)")
            return error.exitStatus
        }
    }

    private static func restore(_ path: String, configuration: Configuration) -> Int32 {
        guard configuration.databaseURL != nil || configuration.photoDir == nil else {
            Command.printError("har backup restore: photo_dir is for PostgreSQL's nodes; set database_url too")
            return 1
        }
        do {
            if let databaseURL = configuration.databaseURL {
                return try PostgresRestorer(
                    databaseURL: databaseURL, photosDirectory: configuration.photosDirectory,
                    actor: Command.operatorActor, key: configuration.backupKey, say: { print($0) }
                ).restore(from: path, now: WallClock.now())
            }
            return try BackupRestorer(
                dataDir: configuration.dataDir, actor: Command.operatorActor, key: configuration.backupKey,
                say: { print($0) }
            )
            .restore(from: path, now: WallClock.now())
        } catch let failure as BackupFailure {
            Command.printError("\(failure)")
            return failure.exitStatus
        } catch let refused as BackupRestorer.Refused {
            Command.printError("\(refused)")
            return 75
        } catch {
            Command.printError("restore failed: \(error)")
            return 1
        }
    }
}
