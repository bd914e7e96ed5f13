import FoundationEssentials

/// `MANIFEST.json`, the archive's first entry: what made the backup, the database's schema, its row
/// counts, and every file that follows in the order it follows, each with its size and SHA-256.
/// docs/OPERATIONS.md describes the layout.
struct BackupManifest: Codable, Equatable {
    static let formatName = "har-backup 1"
    static let entryName = "MANIFEST.json"
    static let databaseEntry = "har.sqlite"
    /// A PostgreSQL database's entry: `pg_dump -Fc` of it, in place of the SQLite file.
    static let postgresDumpEntry = "har.pgdump"
    static let postgresKind = "postgresql"
    /// The largest manifest read (about 300,000 photo files): a larger one is refused unread.
    static let sizeLimit = 64 << 20

    struct File: Codable, Equatable {
        let path: String
        let size: Int
        let sha256: String
    }

    var format = formatName
    var appVersion = Command.version
    var schemaVersion: Int
    var sqliteVersion: String
    /// ISO 8601, UTC: when the database snapshot was taken.
    var createdAt: String
    var rowCounts: [String: Int]
    var files: [File]
    /// Photos of the snapshot whose files were already removed after the platform stored them
    /// (`photo_retention_seconds`): not in the archive, and not needed.
    var sweptPhotos: [String]
    /// Photos of the snapshot not yet on the platform whose files were missing from the data folder
    /// when the backup was taken: the loss is the data folder's, the backup says so.
    var missingPhotos: [String]
    /// `postgresql` for a dump of a PostgreSQL database; absent for SQLite (the first backups had no such field).
    var database: String?
    /// The PostgreSQL server's version (`server_version`) when the dump was taken.
    var postgresqlVersion: String?

    var isPostgres: Bool { database == Self.postgresKind }
    /// The name of the database's entry in the archive.
    var databaseEntryName: String { isPostgres ? Self.postgresDumpEntry : Self.databaseEntry }

    enum CodingKeys: String, CodingKey {
        case format
        case appVersion = "app_version"
        case schemaVersion = "schema_version"
        case sqliteVersion = "sqlite_version"
        case createdAt = "created_at"
        case rowCounts = "row_counts"
        case files
        case sweptPhotos = "swept_photos"
        case missingPhotos = "missing_photos"
        case database
        case postgresqlVersion = "postgresql_version"
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return Array(try encoder.encode(self))
    }
}

/// `TRAILER.json`, the last entry: the SHA-256 of every archive byte before its own header. An
/// archive without it was cut off.
struct BackupTrailer: Codable, Equatable {
    static let entryName = "TRAILER.json"
    var format = BackupManifest.formatName
    var entries: Int
    var sha256: String
    /// HMAC-SHA256 of the checksum under `backup_key` (`BackupSignature`); absent when no key was set.
    var hmacSHA256: String?

    enum CodingKeys: String, CodingKey {
        case format, entries, sha256
        case hmacSHA256 = "hmac_sha256"
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }
}

/// Why a backup cannot be used, each with its own exit status (docs/OPERATIONS.md lists them).
enum BackupFailure: Error, CustomStringConvertible, Equatable {
    /// The file cannot be opened or read.
    case unreadable(String)
    /// A `.partial` file: a backup still being written, or one cut short; never a backup.
    case partial(String)
    /// Not an archive of ours, or its manifest is missing or unreadable.
    case notABackup(String)
    /// The archive ends before its trailer.
    case truncated(String)
    /// A file's or the whole archive's SHA-256 differs from the one recorded.
    case checksumMismatch(String)
    /// `PRAGMA integrity_check` of the unpacked database found damage, or it cannot be opened.
    case databaseDamaged(String)
    /// A photo the database still needs is not in the archive.
    case photoMissing(String)
    /// The backup's schema is newer than this binary knows.
    case newerSchema(String)
    /// The database holds schema objects (triggers, views, tables, indexes) the migrations do not make.
    case foreignSchema(String)
    /// A `backup_key` is set and the archive is unsigned, or its signature is not the key's.
    case signature(String)

    var exitStatus: Int32 {
        switch self {
        case .unreadable: 66
        case .partial: 10
        case .notABackup: 11
        case .truncated: 12
        case .checksumMismatch: 13
        case .databaseDamaged: 14
        case .photoMissing: 15
        case .newerSchema: 16
        case .foreignSchema: 17
        case .signature: 18
        }
    }

    var description: String {
        switch self {
        case .unreadable(let message), .partial(let message), .notABackup(let message), .truncated(let message),
            .checksumMismatch(let message), .databaseDamaged(let message), .photoMissing(let message),
            .newerSchema(let message), .foreignSchema(let message), .signature(let message):
            message
        }
    }
}
