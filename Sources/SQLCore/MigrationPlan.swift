/// Why a database's schema cannot be brought to, or run at, this program's migrations, whichever the
/// database (SQLite's `Migrator`, PostgreSQL's `PostgresMigrator`).
public enum MigrationError: Error, CustomStringConvertible, Equatable {
    /// Two migrations in the code share a version.
    case duplicateVersion(Int)
    /// The database was migrated by newer code (a downgrade): running on it could corrupt data.
    case databaseIsNewer(databaseVersion: Int, newestKnownVersion: Int)
    /// The database records a version the code does not have (a migration removed, or another branch).
    case unknownAppliedVersion(Int)
    /// The database lacks migrations this program has, and was not to be migrated.
    case databaseIsOlder(missing: [Int])
    /// A migration's SQL failed (`underlying`: the driver's error); its transaction was rolled back.
    case failed(version: Int, name: String, underlying: any Error)

    public var description: String {
        switch self {
        case .duplicateVersion(let version):
            return "migration version \(version) is defined more than once"
        case .databaseIsNewer(let databaseVersion, let newestKnownVersion):
            return "database schema is at version \(databaseVersion), newer than this program knows "
                + "(\(newestKnownVersion)); refusing to run an older program on it"
        case .unknownAppliedVersion(let version):
            return "database records migration \(version), which this program does not define"
        case .databaseIsOlder(let missing):
            return "database schema lacks migrations \(missing.map(String.init).joined(separator: ", ")) "
                + "of this program"
        case .failed(let version, let name, let underlying):
            return "migration \(version) (\(name)) failed: \(underlying)"
        }
    }

    public static func == (lhs: MigrationError, rhs: MigrationError) -> Bool {
        switch (lhs, rhs) {
        case (.duplicateVersion(let left), .duplicateVersion(let right)),
            (.unknownAppliedVersion(let left), .unknownAppliedVersion(let right)):
            return left == right
        case (.databaseIsNewer(let left, let leftKnown), .databaseIsNewer(let right, let rightKnown)):
            return left == right && leftKnown == rightKnown
        case (.databaseIsOlder(let left), .databaseIsOlder(let right)):
            return left == right
        case (.failed(let left, let leftName, let leftError), .failed(let right, let rightName, let rightError)):
            return left == right && leftName == rightName && isSame(leftError, rightError)
        default:
            return false
        }
    }

    /// Both drivers' errors are `Equatable`; an error that is not is equal to nothing.
    private static func isSame(_ left: any Error, _ right: any Error) -> Bool {
        guard let left = left as? any Equatable else { return false }
        return left.isEqual(to: right)
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}

/// What a migrator checks of its migrations and of the versions a database records, written once for
/// both databases: the migrations in version order, none sharing a version, and the database neither
/// ahead of them nor recording one they lack.
public struct MigrationPlan: Sendable {
    /// The migrations in ascending version order.
    public let ordered: [Migration]

    /// Throws `duplicateVersion` when two migrations share a version: checked before the database is touched.
    public init(_ migrations: [Migration]) throws {
        var seen: Set<Int> = []
        for migration in migrations where !seen.insert(migration.version).inserted {
            throw MigrationError.duplicateVersion(migration.version)
        }
        ordered = migrations.sorted { $0.version < $1.version }
    }

    /// The migrations a database recording `applied` lacks, in version order. Throws when the database
    /// is ahead of this program: a version newer than every migration, or one it does not define.
    public func pending(applied: Set<Int>) throws -> [Migration] {
        let newestKnown = ordered.last?.version ?? 0
        if let newestApplied = applied.max(), newestApplied > newestKnown {
            throw MigrationError.databaseIsNewer(databaseVersion: newestApplied, newestKnownVersion: newestKnown)
        }
        let known = Set(ordered.map(\.version))
        if let unknown = applied.sorted().first(where: { !known.contains($0) }) {
            throw MigrationError.unknownAppliedVersion(unknown)
        }
        return ordered.filter { !applied.contains($0.version) }
    }
}
