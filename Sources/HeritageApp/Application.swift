// HeritageApp: the web application. Screens (one type per page or feature), Web (sessions, CSRF,
// language, the page helpers), Worker (the outbox and the upload worker), the stores, configuration,
// the commands of `har` and the log. `Application` wires them to HTTPServer, the stores, Mustache, Imaging
// and the platform client; the `har` target only parses the command line and calls in.
import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient
import SQLiteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The web application as `har serve` runs it, and as tests build it: the data folder, the store,
/// the templates, the routes and the HTTP server, wired together once. Nothing here is global.
public final class Application: Sendable {
    public let configuration: Configuration
    let stores: Stores
    let templates: TemplateLibrary
    let metrics: Metrics
    let server: HTTPServer
    let benchmarkFixtures: BenchmarkFixtures?
    /// The one way to the platform: the upstream one configured, or the embedded local platform.
    let platform: PlatformClient
    let embeddedPlatform: EmbeddedPlatform?
    /// Sends the outbox to the platform: woken by a submission, resumed by a sign-in.
    let worker: UploadWorker
    /// Sends the mail outbox; nil without `smtp_url` (the outbox still fills, for the app's own page).
    let mailWorker: MailWorker?
    /// Makes coordinators' digests and administrators' daily notes, with or without mail.
    let mailDigests: MailDigests
    let dataFolderLock: DataFolderLock
    /// The drafts' store and files, also swept once at start.
    let drafts: Drafts
    /// The review's parts, whose policy and configured coordinators are recorded once at start.
    let review: Review
    let log: Log
    /// Every route's method and pattern (the kiosk's sweep of the tests, KIO-02).
    let routeTable: [(method: String, pattern: String)]
    /// The review's exports, off the poll threads (tests hold its jobs to see the server meanwhile).
    let exports: ExportRunner
    /// The scheduled backups (`backup_dir`), started once the server listens; nil without a backup folder.
    let backups: BackupSchedule?
    /// systemd's notification socket when `har serve` runs under it (`serviceEnvironment`), else nil.
    let serviceManager: ServiceManager?

    /// Opens the data folder and the database, compiles every template and builds the routes.
    /// Throws, with a message naming the file, when any of them cannot be used.
    /// `platformExecutable` is the `har` binary that runs the embedded platform (default: this process's
    /// own executable; tests that build the application in-process name the real `har`).
    /// `serviceEnvironment` is where a service manager is found (`NOTIFY_SOCKET`, `WATCHDOG_USEC`): the
    /// process's environment for `har serve`, none for tests that build the application in-process.
    public init(
        configuration: Configuration, log: Log = Log(), platformExecutable: String? = nil,
        serviceEnvironment: [String: String] = [:]
    ) throws {
        self.configuration = configuration
        self.log = log
        let dataDir = configuration.dataDir
        let temporaryDirectory = configuration.uploadsDirectory
        try DataFolder.prepare(dataDir)
        dataFolderLock = try DataFolderLock(dataDir: dataDir)
        try DataFolder.prepare(temporaryDirectory)
        DataFolder.removeContents(of: temporaryDirectory)
        try DataFolder.prepare(configuration.exportsDirectory)
        DataFolder.removeContents(of: configuration.exportsDirectory)

        if configuration.databaseURL == nil { try DataFolder.preparePrivateFile(dataDir + "/har.sqlite") }
        stores = try Stores.open(configuration: configuration, log: log)
        try PlatformIdentity.check(PlatformIdentity.of(configuration), store: stores.instance, dataDir: dataDir)
        templates = try TemplateLibrary(directory: configuration.templatesDir)
        metrics = Metrics()
        benchmarkFixtures =
            configuration.benchmarkRoutes
            ? try BenchmarkFixtures(path: dataDir + "/bench.sqlite", templates: templates) : nil

        let messages = try MessageCatalog(directory: configuration.templatesDir)

        // Last of what can fail, so that nothing after it can leave the child running.
        let clients = try PlatformClients(configuration: configuration, log: log, executable: platformExecutable)
        embeddedPlatform = clients.embedded
        platform = clients.web

        let outbox = stores.outbox
        let workerMetrics = WorkerMetrics()
        let worker = UploadWorker(
            store: outbox, leases: stores.leases, client: clients.worker,
            settings: WorkerSettings(configuration: configuration),
            dataDirectory: dataDir, metrics: workerMetrics, log: log, photosDirectory: configuration.photosDirectory)
        self.worker = worker
        mailWorker = MailSetup.worker(
            configuration: configuration, store: stores.mail, templates: templates, catalog: messages, log: log)
        mailDigests = MailDigests(store: stores.coordinatorMail, log: log) { [mailWorker] in mailWorker?.wake() }

        let exports = ReviewSettings.exportRunner(configuration)
        self.exports = exports
        let (router, drafts, review) = Self.router(
            configuration: configuration, log: log,
            parts: RouterParts(
                stores: stores, outbox: outbox, templates: templates, messages: messages, metrics: metrics,
                workerMetrics: workerMetrics, worker: worker, platform: platform, benchmarkFixtures: benchmarkFixtures,
                exports: exports))
        self.drafts = drafts
        self.review = review
        routeTable = router.routeTable
        backups = BackupSchedule(configuration: configuration, metrics: metrics.backups, log: log, stores: stores)
        serviceManager = ServiceManager(environment: serviceEnvironment)

        let (accessLog, metrics) = (configuration.accessLog, metrics)
        server = HTTPServer(
            configuration: ServerConfiguration(application: configuration, temporaryDirectory: temporaryDirectory),
            router: router,
            accessLog: { entry in
                metrics.record(entry)
                if accessLog { log.access(entry) }
            }, refusals: metrics.refusals, errorLog: { log.error("http: " + $0) })
    }

    /// What the routes are built from, besides the configuration and the log.
    struct RouterParts {
        let stores: Stores
        let outbox: any OutboxStore
        let templates: TemplateLibrary
        let messages: MessageCatalog
        let metrics: Metrics
        let workerMetrics: WorkerMetrics
        let worker: UploadWorker
        let platform: PlatformClient
        let benchmarkFixtures: BenchmarkFixtures?
        let exports: ExportRunner
    }

    /// Loads and compresses the static files on a thread of their own at nice +10 (`static_warm`), so
    /// that no request waits for a file's compression (docs/BENCHMARKS.md "Tail latency").
    static func warmStaticFiles(_ warmer: StaticWarmer, log: Log) {
        let work = BlockingWork(label: "static-warm", limit: 1, threads: .background(nice: 10))
        Task.detached {
            let loaded = try? await work.run { warmer.warm() }
            log.info("static files loaded ahead of their first request: \(loaded ?? 0)")
        }
    }

    /// Every route: static files, health and metrics, the benchmark fixtures when enabled, the screens;
    /// and the drafts and the review the screens share, which `start` sweeps and records.
    static func router(configuration: Configuration, log: Log, parts: RouterParts) -> (Router, Drafts, Review) {
        let pages = Pages(templates: parts.templates, catalog: parts.messages)
        var router = Router()
        router.errorPage = { status, request in pages.error(status: status, request: request) }
        let assetVersion = StaticAssetVersion.of(directory: configuration.publicDir)
        let warmer = router.serveStatic(prefix: "/static", directory: configuration.publicDir, version: assetVersion)
        if configuration.staticWarm { warmStaticFiles(warmer, log: log) }
        ServiceWorkerRoute.register(on: &router, publicDir: configuration.publicDir)
        let health = Health(store: parts.stores.instance)
        router.getInline("/healthz") { _ in health.response() }
        let (metrics, outbox, workerMetrics) = (parts.metrics, parts.outbox, parts.workerMetrics)
        let allowRemoteMetrics = configuration.metricsAllowRemote
        let mailOutbox = parts.stores.mail
        router.getInline("/metrics") { request in
            // Direct connections from this machine only: a request that came through a proxy (it carries a
            // forwarding field) is refused whatever the path's spelling, since a proxy rule for `/metrics`
            // may not match `/metrics/` or `//metrics`.
            let direct = Loopback.contains(request.peerAddress) && !request.isForwarded
            guard allowRemoteMetrics || direct else {
                return pages.error(status: 404, request: request)
            }
            let counts = StatementCounts.process
            let sqlite = (counts.statements, counts.writes, counts.writeTransactions, counts.readerCheckouts)
            let depth = (try? outbox.countsByState()) ?? [:]
            let mail = MailSetup.metricsText(try? mailOutbox.countsByState())
            return metrics.response(
                health: health, sqlite: sqlite, extra: workerMetrics.text(depthByState: depth) + mail)
        }
        parts.benchmarkFixtures?.addRoutes(to: &router)
        // The creation page's photo limit and map; a submission wakes the upload worker at once.
        let worker = parts.worker
        let draftOptions = DraftOptions(
            mapTileURL: configuration.mapTileURL, maxFileBytes: configuration.maxFileBytes,
            retentionSeconds: configuration.draftRetentionSeconds,
            uploadRoom: UploadRoom(
                temporaryDirectory: configuration.uploadsDirectory, temporaryMaxBytes: configuration.uploadTempMaxBytes,
                dataDirectory: configuration.dataDir, minimumFreeBytes: configuration.uploadMinFreeBytes),
            photosPerDay: configuration.photosPerDay, undeliveredBytesPerUser: configuration.photoBytesPerUser)
        let web = Web(
            stores: parts.stores, templates: parts.templates, catalog: parts.messages, platform: parts.platform,
            log: log,
            secure: configuration.tlsCert != nil || configuration.cookieSecure,
            photosDirectory: configuration.photosDirectory,
            handlerDeadline: Double(configuration.handlerDeadlineSeconds),
            worker: WorkerSignals(worker),
            assetVersion: assetVersion,
            sessionLimits: SessionLimits(
                idleSeconds: Double(configuration.sessionIdleSeconds),
                maxSeconds: Double(configuration.sessionMaxSeconds)),
            keptListBytes: configuration.listKeptBytes, gzipLevel: Int32(configuration.gzipLevel))
        let drafts = Drafts(web: web, options: draftOptions)
        var reviewSettings = ReviewSettings(configuration: configuration)
        reviewSettings.exports = parts.exports
        reviewSettings.backups = parts.metrics.backups
        let review = Review(web: web, store: web.stores.review, settings: reviewSettings)
        let kiosks = Kiosks(
            web: web, store: web.stores.kiosks, drafts: drafts, settings: KioskSettings(configuration: configuration))
        // The screens by group of path (docs/WEB.md "Routes"): the volunteer's at "/", the review's at
        // "/review", the tablet's at "/kiosk" and the receipts at "/r"; each group's admission is its own.
        WebRoutes.register(on: &router, web: web, drafts: drafts, review: review)
        UnsubscribeRoutes.register(on: &router, web: web)
        ReviewRoutes.register(on: &router, review: review, kiosks: kiosks)
        KioskRoutes.register(on: &router, kiosks: kiosks)
        return (router, drafts, review)
    }

    /// Every step of the start, in order: the drafts swept and the review's records written before
    /// the server answers; listening (throws with the address when it cannot), said in the log with
    /// what an operator should know of its exposure; then the workers and the scheduled backups (whose
    /// first run reads the data as it is once the server answers); last, systemd told the server is
    /// ready and its watchdog started.
    public func start() throws {
        drafts.startUp(now: WallClock.now())
        ReviewRoutes.startUp(review)
        try server.start()
        let scheme = configuration.tlsCert == nil ? "http" : "https"
        log.info("Heritage at Risk \(Command.version) listening on \(scheme)://\(configuration.host):\(port)")
        for warning in Serve.exposureWarnings(configuration) { log.warning(warning) }
        if configuration.workerEnabled { worker.start() }
        mailWorker?.start()
        mailDigests.start()
        do {
            try backups?.start()
        } catch {
            // A backup folder that cannot be made is no reason not to serve: the metrics and the
            // administrators' notice say the backups are overdue.
            log.error("scheduled backups are off: \(error)")
        }
        serviceManager?.ready(
            port: port,
            probe: ListenerProbe(host: configuration.host, port: port, speaksTLS: configuration.tlsCert != nil),
            health: Health(store: stores.instance), log: log)
    }

    /// The port the server listens on (the configured one, or the one picked for port 0).
    public var port: Int { server.port }

    /// Tells systemd it stops and ends the scheduled backups; stops accepting, lets requests in flight
    /// finish (at most `gracePeriod` seconds), closes the store.
    public func stop(gracePeriod: Double = 10) {
        serviceManager?.stopping()
        backups?.stop()
        worker.stop(timeout: min(gracePeriod, 5))
        mailWorker?.stop(timeout: min(gracePeriod, 5))
        mailDigests.stop(timeout: min(gracePeriod, 5))
        server.stop(gracePeriod: gracePeriod)
        embeddedPlatform?.stop()
        benchmarkFixtures?.close()
        stores.close()
        dataFolderLock.release()
    }
}

/// The application as `har serve` runs it and as tests build it in-process: one entry for both.
/// `platformExecutable` is the `har` binary that runs the embedded platform (default: this process's own
/// executable; a test process names the built `har`).
public func buildApplication(
    configuration: Configuration, log: Log = Log(), platformExecutable: String? = nil,
    serviceEnvironment: [String: String] = [:]
) throws -> Application {
    try Application(
        configuration: configuration, log: log, platformExecutable: platformExecutable,
        serviceEnvironment: serviceEnvironment)
}

/// The application's two clients of the platform, the upstream one configured or the embedded local
/// platform (started here, as a child process, and stopped again if a client cannot be made).
struct PlatformClients {
    let embedded: EmbeddedPlatform?
    /// The screens' client (sign-in, listings).
    let web: PlatformClient
    /// The worker's client, with transfer threads of its own so that a sign-in never queues behind
    /// photo uploads.
    let worker: PlatformClient

    init(configuration: Configuration, log: Log, executable: String?) throws {
        let platformConfiguration: PlatformConfiguration
        if let url = configuration.platformURL, let key = configuration.consumerKey,
            let secret = configuration.consumerSecret
        {
            embedded = nil
            platformConfiguration = PlatformConfiguration(baseURL: url, consumerKey: key, consumerSecret: secret)
        } else {
            let embedded = try EmbeddedPlatform(configuration: configuration, log: log, executable: executable)
            self.embedded = embedded
            platformConfiguration = PlatformConfiguration(
                baseURL: embedded.baseURL, consumerKey: embedded.consumerKey, consumerSecret: embedded.consumerSecret)
        }
        var clientConfiguration = platformConfiguration
        clientConfiguration.connectTimeout = configuration.platformConnectTimeout
        clientConfiguration.totalTimeout = configuration.platformTimeout
        clientConfiguration.proxy = configuration.platformProxy
        var workerClientConfiguration = clientConfiguration
        workerClientConfiguration.concurrentTransfers = configuration.workerReportsAtOnce + 1
        do {
            web = try PlatformClient(configuration: clientConfiguration, log: { log.info($0) })
            worker = try PlatformClient(configuration: workerClientConfiguration)
        } catch {
            embedded?.stop()
            throw error
        }
    }
}

extension ServerConfiguration {
    init(application configuration: Configuration, temporaryDirectory: String) {
        self.init(host: configuration.host, port: configuration.port)
        threadCount = configuration.threads
        limits.connectionMemoryBytes = configuration.connectionMemoryBytes
        limits.maxBodyBytes = configuration.maxBodyBytes
        limits.maxFileBytes = configuration.maxFileBytes
        limits.maxFiles = configuration.maxFiles
        limits.maxConnections = configuration.maxConnections
        limits.maxConnectionsPerIP = configuration.maxConnectionsPerIP
        limits.idleTimeoutSeconds = configuration.idleTimeoutSeconds
        limits.handlerDeadlineSeconds = Double(configuration.handlerDeadlineSeconds)
        limits.headerTimeoutSeconds = Double(configuration.headerTimeoutSeconds)
        limits.minimumBodyBytesPerSecond = configuration.minBodyBytesPerSecond
        self.temporaryDirectory = temporaryDirectory
        tlsCertificatePath = configuration.tlsCert
        tlsKeyPath = configuration.tlsKey
        securityHeaders = Self.securityHeaders(
            mapTileOrigin: Drafts.tileOrigin(configuration.mapTileURL),
            strictTransport: configuration.tlsCert != nil || configuration.cookieSecure)
        allowedHosts = configuration.hostAllowlist
        gzipLevel = Int32(configuration.gzipLevel)
        // Checked when the configuration was loaded; a value that fails here trusts no proxy.
        if case .success(let proxies) = TrustedProxies.parse(configuration.trustedProxies ?? "") {
            trustedProxies = proxies
        }
    }

    /// Powerful features for this origin only: the creation page's camera and location; nothing else.
    static let permissionsPolicy = "camera=(self), geolocation=(self), microphone=(), payment=(), usb=()"
    /// One year, this host only: a LAN name or address shares no parent domain we could speak for.
    static let strictTransportSecurity = "max-age=31536000"

    /// The default headers, with the map tiles' origin allowed as an image source (the creation page's
    /// Leaflet map), nothing else from outside; HSTS whenever the site is reached over HTTPS (served
    /// here, or behind a TLS proxy when cookies are marked secure).
    static func securityHeaders(mapTileOrigin: String?, strictTransport: Bool) -> Headers {
        var headers = Headers()
        for (name, value) in defaultSecurityHeaders {
            if let mapTileOrigin, name.lowercased() == "content-security-policy" {
                headers.add(name, value.replacing("img-src 'self'", with: "img-src 'self' \(mapTileOrigin)"))
            } else {
                headers.add(name, value)
            }
        }
        headers.add("Permissions-Policy", permissionsPolicy)
        if strictTransport { headers.add("Strict-Transport-Security", strictTransportSecurity) }
        return headers
    }
}

/// Loopback addresses, for what only the machine itself may see.
enum Loopback {
    static func contains(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
