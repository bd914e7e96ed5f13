// Stores: every SQL statement of the application lives in this folder, and nowhere else. A folder per
// aggregate holds its protocol, its SQL and its store: Users/ (`UserStore`, `SettingsStore`,
// `InstanceStore`, sign-in limits), Drafts/, Reports/ (`ReportStore`, `OutboxStore`, the worker's leases,
// delivery attempts, photo quotas, each engine's tuned list page), Review/, Kiosks/, Mail/ (the mail
// outbox, notifications, coordinators' choices), Sites/, Backup/ (the rows a backup reads and a restore
// rewrites) and Migrations/ (one file per version, listed in `AppMigrations.registry`). Engines/ is the
// drivers' glue: `SQLBackend` over SQLite and PostgreSQL, the dialect's named capabilities, the copy from
// one engine to the other, and `BenchmarkStore` for bench/run's fixtures. Screens, routes, the worker and
// the commands get the protocols, never a driver's type or error: a failure leaves a store as a
// `StoreError`. Each store is written once over `SQLBackend` and runs the same tests on both engines
// (Tests/HeritageAppTests/Stores/StoreConformanceTests.swift).

/// The application's stores, opened once and handed to whatever needs them.
struct Stores: Sendable {
    var users: any UserStore
    var settings: any SettingsStore
    var drafts: any DraftStore
    /// The list's side of the reports' aggregate.
    var reports: any ReportStore
    /// The worker's and `har outbox`'s side of the same aggregate.
    var outbox: any OutboxStore
    /// The worker's leases on the outbox's reports.
    var leases: any OutboxLeases
    var instance: any InstanceStore
    /// Failed sign-ins, for the progressive delay.
    var signInLimits: any SignInLimitStore
    /// Photos per user per day and bytes kept, for the quotas.
    var photoQuota: any PhotoQuotaStore
    /// Roles, review states and the audit log.
    var review: any ReviewStore
    /// Kiosks, their visitors' drafts and receipts.
    var kiosks: any KioskStore
    /// The mail outbox (docs/NOTIFICATIONS.md).
    var mail: any MailOutboxStore
    /// The same rows as the signed-in user's notifications.
    var notifications: any NotificationStore
    /// Coordinators' choices, digests, administrators' notes and failed mail (NOT-02, NOT-04).
    var coordinatorMail: any CoordinatorMailStore
    /// The register of heritage sites (docs/SITES.md).
    var sites: any SiteStore
    /// The coordinators' side of the register of sites: attach, standing, the register's view.
    var siteReview: any SiteReviewStore
    /// Reads of several of these stores in one snapshot, where the engine gains by it (`SQLBackend.readTogether`).
    var together: any ReadTogether
    /// Closes the backend; later calls throw `StoreError`.
    var close: @Sendable () -> Void
}

/// Reads of several stores in one snapshot: `body`'s reads on this thread share one (SQLite: one reader,
/// one read transaction). For a page that reads several aggregates; reads only.
protocol ReadTogether: Sendable {
    func reads<T>(_ body: () throws -> T) throws -> T
}

/// A backend's `readTogether`, as `Stores.together`.
private struct BackendReads<Backend: SQLBackend>: ReadTogether {
    let database: Backend
    func reads<T>(_ body: () throws -> T) throws -> T { try database.readTogether(body) }
}

extension Stores {
    /// The stores on the SQLite file at `path` (created and migrated when needed).
    /// `mailCap`: coordinators' immediate mail per hour, each (`mail_immediate_per_hour`).
    static func sqlite(path: String, mailCap: Int = 10, revocations: RevocationJournal? = nil) throws -> Stores {
        sqlite(
            try SQLiteDatabase(path: path, migrations: AppMigrations.sqlite), mailCap: mailCap, revocations: revocations
        )
    }

    static func sqlite(_ database: SQLiteDatabase, mailCap: Int = 10, revocations: RevocationJournal? = nil) -> Stores {
        on(database, mailCap: mailCap, revocations: revocations, close: { database.close() })
    }

    /// Every store on one backend: the same generic stores whichever it is (SQLBackend.swift).
    /// `mailCap`: coordinators' immediate mail per hour, each (`mail_immediate_per_hour`).
    /// `revocations`: where role and kiosk revocations are recorded outside the database (`RevocationJournal`).
    static func on<Backend: SQLBackend>(
        _ database: Backend, mailCap: Int = 10, revocations: RevocationJournal? = nil,
        close: @escaping @Sendable () -> Void
    ) -> Stores {
        let reports = SQLReportStore(database: database)
        return Stores(
            users: SQLUserStore(database: database), settings: SQLSettingsStore(database: database),
            drafts: SQLDraftStore(database: database, mailImmediatePerHour: mailCap), reports: reports, outbox: reports,
            leases: SQLOutboxLeases(database: database), instance: SQLInstanceStore(database: database),
            signInLimits: SQLSignInLimitStore(database: database),
            photoQuota: SQLPhotoQuotaStore(database: database),
            review: SQLReviewStore(database: database, revocations: revocations),
            kiosks: SQLKioskStore(database: database, mailImmediatePerHour: mailCap, revocations: revocations),
            mail: SQLMailOutboxStore(database: database), notifications: SQLMailOutboxStore(database: database),
            coordinatorMail: SQLMailOutboxStore(database: database), sites: SQLSiteStore(database: database),
            siteReview: SQLSiteReviewStore(database: database), together: BackendReads(database: database),
            close: close)
    }
}

extension Stores {
    /// The stores `har serve` runs on: PostgreSQL at `database_url` when set, else the data folder's
    /// SQLite file.
    /// Before migrating an existing database: a verified snapshot (SQLite), or the operator's word that a
    /// backup was taken (PostgreSQL).
    static func open(configuration: Configuration, log: Log = Log()) throws -> Stores {
        if let url = configuration.databaseURL {
            try PostgresBackupGuard.check(
                url: url, known: AppMigrations.postgres, backupTaken: configuration.databaseBackupTaken, log: log)
            return try postgres(
                url: url, poolSize: configuration.databasePoolSize, mailCap: configuration.mailImmediatePerHour,
                revocations: RevocationJournal(configuration: configuration))
        }
        let path = configuration.dataDir + "/har.sqlite"
        try MigrationSnapshot.takeIfDue(
            path: path, snapshotsDirectory: configuration.dataDir + "/snapshots", known: AppMigrations.sqlite, log: log)
        return try sqlite(
            path: path, mailCap: configuration.mailImmediatePerHour,
            revocations: RevocationJournal(configuration: configuration))
    }

    /// The stores on the PostgreSQL database at `url` (migrated when needed, under an advisory lock),
    /// with at most `poolSize` connections.
    static func postgres(url: String, poolSize: Int, mailCap: Int = 10, revocations: RevocationJournal? = nil) throws
        -> Stores
    {
        postgres(
            try PostgresDatabase(url: url, poolSize: poolSize, migrations: AppMigrations.postgres), mailCap: mailCap,
            revocations: revocations)
    }

    static func postgres(_ database: PostgresDatabase, mailCap: Int = 10, revocations: RevocationJournal? = nil)
        -> Stores
    {
        on(database, mailCap: mailCap, revocations: revocations, close: { database.close() })
    }
}

/// A store's failure, by what the caller can do about it. Carries the backend's description (for the
/// log: the statement, never a bound value) and nothing of the backend's types.
struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A uniqueness (or other) constraint refused the change: the row is someone else's already.
        case conflict
        /// Another writer held the database longer than the store waits.
        case busy
        /// The database cannot be opened or used (missing, not a database, closed, disk full, …).
        case unavailable
        /// Something the store expected to hold did not (a row missing after its insert, …).
        case invariant
    }

    let kind: Kind
    let description: String
    /// The database's disk is full (SQLite's `SQLITE_FULL`, PostgreSQL's 53100): answered 507, not 503.
    var isDiskFull = false

    init(_ kind: Kind, _ description: String, isDiskFull: Bool = false) {
        self.kind = kind
        self.description = description
        self.isDiskFull = isDiskFull
    }

    var isConflict: Bool { kind == .conflict }
}
