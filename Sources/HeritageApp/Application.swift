import FoundationEssentials
import HTTPServer
import Mustache
import Platform
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// The web application as `har serve` runs it, and as tests build it: the data folder, the store,
/// the templates, the routes and the HTTP server, wired together once. Nothing here is global.
public final class Application: Sendable {
    public let configuration: Configuration
    let store: DatabasePool
    let templates: TemplateLibrary
    let metrics: Metrics
    let server: HTTPServer
    let benchmarkFixtures: BenchmarkFixtures?
    /// The one way to the platform: the upstream one configured, or the embedded local platform.
    let platform: PlatformClient
    let embeddedPlatform: EmbeddedPlatform?
    /// Sends the outbox to the platform (issue 5): woken by a submission, resumed by a sign-in.
    let worker: UploadWorker
    let dataFolderLock: DataFolderLock

    /// Opens the data folder and the database, compiles every template and builds the routes.
    /// Throws, with a message naming the file, when any of them cannot be used.
    /// `platformExecutable` is the `har` binary that runs the embedded platform (default: this process's
    /// own executable; tests that build the application in-process name the real `har`).
    public init(configuration: Configuration, log: Log = Log(), platformExecutable: String? = nil) throws {
        self.configuration = configuration
        let dataDir = configuration.dataDir
        let temporaryDirectory = dataDir + "/tmp"
        try DataFolder.prepare(dataDir)
        dataFolderLock = try DataFolderLock(dataDir: dataDir)
        try DataFolder.prepare(temporaryDirectory)
        DataFolder.removeContents(of: temporaryDirectory)

        store = try DatabasePool(path: dataDir + "/har.sqlite", configuration: .init(migrations: AppMigrations.all))
        try PlatformIdentity.check(PlatformIdentity.of(configuration), store: store, dataDir: dataDir)
        templates = try TemplateLibrary(directory: configuration.templatesDir)
        metrics = Metrics()
        benchmarkFixtures =
            configuration.benchmarkRoutes
            ? try BenchmarkFixtures(path: dataDir + "/bench.sqlite", templates: templates) : nil

        let messages = try MessageCatalog(directory: configuration.templatesDir)

        // Last of what can fail, so that nothing after it can leave the child running.
        let platformConfiguration: PlatformConfiguration
        if let url = configuration.platformURL, let key = configuration.consumerKey,
            let secret = configuration.consumerSecret
        {
            embeddedPlatform = nil
            platformConfiguration = PlatformConfiguration(baseURL: url, consumerKey: key, consumerSecret: secret)
        } else {
            let embedded = try EmbeddedPlatform(configuration: configuration, log: log, executable: platformExecutable)
            embeddedPlatform = embedded
            platformConfiguration = PlatformConfiguration(
                baseURL: embedded.baseURL, consumerKey: embedded.consumerKey, consumerSecret: embedded.consumerSecret)
        }
        var clientConfiguration = platformConfiguration
        clientConfiguration.connectTimeout = configuration.platformConnectTimeout
        clientConfiguration.totalTimeout = configuration.platformTimeout
        clientConfiguration.proxy = configuration.platformProxy
        // The worker has a client (and transfer threads) of its own, so that a sign-in never queues
        // behind photo uploads.
        var workerClientConfiguration = clientConfiguration
        workerClientConfiguration.concurrentTransfers = configuration.workerReportsAtOnce + 1
        let workerClient: PlatformClient
        do {
            platform = try PlatformClient(configuration: clientConfiguration, log: { log.info($0) })
            workerClient = try PlatformClient(configuration: workerClientConfiguration)
        } catch {
            embeddedPlatform?.stop()
            throw error
        }

        let outbox = OutboxStore(pool: store)
        let workerMetrics = WorkerMetrics()
        let worker = UploadWorker(
            store: outbox, client: workerClient, settings: WorkerSettings(configuration: configuration),
            dataDirectory: dataDir, metrics: workerMetrics, log: log)
        self.worker = worker

        let pages = Pages(templates: templates, catalog: messages)
        var router = Router()
        router.errorPage = { status, request in pages.error(status: status, request: request) }
        router.serveStatic(prefix: "/static", directory: configuration.publicDir)
        let health = Health(store: store)
        router.getInline("/healthz") { _ in health.response() }
        let metrics = metrics
        let allowRemoteMetrics = configuration.metricsAllowRemote
        router.getInline("/metrics") { request in
            guard allowRemoteMetrics || Loopback.contains(request.remoteAddress) else {
                return pages.error(status: 404, request: request)
            }
            let depth = (try? outbox.countsByState()) ?? [:]
            return metrics.response(health: health, extra: workerMetrics.text(depthByState: depth))
        }
        benchmarkFixtures?.addRoutes(to: &router)
        // The creation page's photo limit and map; a submission wakes the upload worker at once.
        let draftOptions = DraftOptions(
            mapTileURL: configuration.mapTileURL, maxFileBytes: configuration.maxFileBytes,
            retentionSeconds: configuration.draftRetentionSeconds, onQueued: { worker.wake() })
        let web = Web(
            store: store, templates: templates, catalog: messages, platform: platform, log: log,
            secure: configuration.tlsCert != nil || configuration.cookieSecure, photosDirectory: dataDir + "/photos",
            handlerDeadline: Double(configuration.handlerDeadlineSeconds),
            events: WebEvents(userSignedIn: { worker.userSignedIn(userID: $0) }, reportDeleting: { worker.wake() }))
        WebRoutes.register(on: &router, web: web, drafts: draftOptions)

        let accessLog = configuration.accessLog
        server = HTTPServer(
            configuration: ServerConfiguration(application: configuration, temporaryDirectory: temporaryDirectory),
            router: router,
            accessLog: { entry in
                metrics.record(entry)
                if accessLog { log.access(entry) }
            }, refusals: metrics.refusals, errorLog: { log.error("http: " + $0) })
    }

    /// Starts listening; throws with the address when it cannot.
    public func start() throws {
        try server.start()
        if configuration.workerEnabled { worker.start() }
    }

    /// The port the server listens on (the configured one, or the one picked for port 0).
    public var port: Int { server.port }

    /// Stops accepting, lets requests in flight finish (at most `gracePeriod` seconds), closes the store.
    public func stop(gracePeriod: Double = 10) {
        worker.stop(timeout: min(gracePeriod, 5))
        server.stop(gracePeriod: gracePeriod)
        embeddedPlatform?.stop()
        benchmarkFixtures?.close()
        store.close()
        dataFolderLock.release()
    }
}

extension ServerConfiguration {
    init(application configuration: Configuration, temporaryDirectory: String) {
        self.init(host: configuration.host, port: configuration.port)
        threadCount = configuration.threads
        limits.maxBodyBytes = configuration.maxBodyBytes
        limits.maxFileBytes = configuration.maxFileBytes
        limits.maxFiles = configuration.maxFiles
        limits.maxConnections = configuration.maxConnections
        limits.maxConnectionsPerIP = configuration.maxConnectionsPerIP
        limits.idleTimeoutSeconds = configuration.idleTimeoutSeconds
        limits.handlerDeadlineSeconds = Double(configuration.handlerDeadlineSeconds)
        self.temporaryDirectory = temporaryDirectory
        tlsCertificatePath = configuration.tlsCert
        tlsKeyPath = configuration.tlsKey
        securityHeaders = Self.securityHeaders(mapTileOrigin: Drafts.tileOrigin(configuration.mapTileURL))
    }

    /// The default headers, with the map tiles' origin allowed as an image source (the creation page's
    /// Leaflet map); nothing else from outside.
    static func securityHeaders(mapTileOrigin: String?) -> Headers {
        guard let mapTileOrigin else { return defaultSecurityHeaders }
        var headers = Headers()
        for (name, value) in defaultSecurityHeaders {
            if name.lowercased() == "content-security-policy" {
                headers.add(name, value.replacing("img-src 'self'", with: "img-src 'self' \(mapTileOrigin)"))
            } else {
                headers.add(name, value)
            }
        }
        return headers
    }
}

/// Loopback addresses, for what only the machine itself may see.
enum Loopback {
    static func contains(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
