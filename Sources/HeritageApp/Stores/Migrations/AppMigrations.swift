import SQLiteStorage

/// One numbered schema change in both dialects, in its own file under Migrations/ named by its version
/// and what it does (`Migration22RoleBinding`). Never edit a migration that has shipped: add the next one.
protocol AppMigration: Sendable {
    /// Its place in the order; the registry's versions run 1, 2, 3… without a gap.
    static var version: Int { get }
    /// Recorded in the database beside the version: never change it once shipped.
    static var name: String { get }
    /// The script in SQLite's dialect (STRICT tables, REAL times, triggers).
    static var sqlite: String { get }
    /// The same tables, columns and indexes in PostgreSQL's: times and coordinates `double precision`
    /// (never `real`, which is 32 bits there), integers `bigint`, row ids identity columns that a copy
    /// from SQLite may set (`BY DEFAULT`), `users.email` unique whatever its letters' case (SQLite's
    /// `COLLATE NOCASE`).
    static var postgres: String { get }
}

/// The application's schema: every migration listed once, in version order, for both databases, so a
/// database of either kind at version N holds the same tables. A new migration is one file under
/// Migrations/ and one line at the end of `registry` (`MigrationRegistryTests` checks the versions run
/// without a gap and every entry has both scripts). Times are Unix seconds, UTC, and coordinates
/// degrees, both 64-bit doubles, declared in `Migration02UsersSessionsReportsPhotos` and
/// `Migration03ExpiredDrafts`.
enum AppMigrations {
    static let registry: [any AppMigration.Type] = [
        Migration01Instance.self,
        Migration02UsersSessionsReportsPhotos.self,
        Migration03ExpiredDrafts.self,
        Migration04ListIndexes.self,
        Migration05SignInFailuresSessionAges.self,
        Migration06ReviewRolesAndAudit.self,
        Migration07DeviceReports.self,
        Migration08ListVersions.self,
        Migration09KiosksAndReceipts.self,
        Migration10WorkerLeasesAndGates.self,
        Migration11ReviewSearchIndexes.self,
        Migration12ReviewNoticesIndex.self,
        Migration13ClaimedReceiptVersions.self,
        Migration14DeliveryAttempts.self,
        Migration15ListedReportsIndex.self,
        Migration16CreateGateLeases.self,
        Migration17ReviewNoticeVersions.self,
        Migration18ReviewGate.self,
        Migration19MailOutbox.self,
        Migration20KioskAccount.self,
        Migration21CoordinatorMailChoices.self,
        Migration22RoleBinding.self,
        Migration23UnsubscribeSecrets.self,
        Migration24EmailIndexes.self,
        Migration25SitesRegister.self,
        Migration26SitesRegisterViewIndexes.self,
        Migration27SiteStanding.self,
        Migration28SiteNameTrigrams.self,
    ]

    /// The registry in SQLite's dialect, as `Migrator` applies it.
    static let sqlite: [Migration] = registry.map { Migration(version: $0.version, name: $0.name, sql: $0.sqlite) }

    /// The registry in PostgreSQL's dialect, as `PostgresMigrator` applies it.
    static let postgres: [Migration] = registry.map {
        Migration(version: $0.version, name: $0.name, sql: $0.postgres)
    }

    /// The newest version this program knows.
    static var newest: Int { registry.last?.version ?? 0 }
}
