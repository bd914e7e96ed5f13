import FoundationEssentials
import HTTPServer

/// Everything `har serve` and `har platform` can be told. One flat set of keys: the same name in the
/// config file (`"port": 8080`) and, upper-cased with a `HAR_` prefix, in the environment
/// (`HAR_PORT=8080`); the environment wins. Every key is listed in `Configuration.keys`, so an unknown
/// key or a bad value stops start with a message naming it.
public struct Configuration: Sendable, Equatable {
    // Web application
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDir = "./data"
    public var threads = 8
    /// libmicrohttpd's memory per connection: the largest request head, and the body read size.
    public var connectionMemoryBytes = 24 * 1024
    public var maxBodyBytes = 64 * 1024 * 1024
    public var maxFileBytes = 30 * 1024 * 1024
    public var maxFiles = 21
    public var maxConnections = 1024
    public var maxConnectionsPerIP = 256
    public var idleTimeoutSeconds = 60
    public var handlerDeadlineSeconds = 30
    public var tlsCert: String?
    public var tlsKey: String?
    public var cookieSecure = false
    /// Comma-separated `Host` names answered besides IP addresses and localhost (DNS rebinding).
    public var allowedHosts: String?
    /// Comma-separated addresses or CIDR ranges of reverse proxies whose forwarding fields are believed.
    public var trustedProxies: String?
    public var templatesDir = "Templates"
    public var publicDir = "Public"
    /// zlib level of pages and JSON sent gzip-compressed; 0 sends them as they are.
    public var gzipLevel = 4
    /// Bytes of the report list's rendered answers kept by their ETag (`KeptPages`); 0 = none.
    public var listKeptBytes = 4 << 20
    /// Static files loaded and compressed at start, on a thread of low priority, rather than by the
    /// first request for each (brotli 11 of app.css held an MHD thread 34 ms).
    public var staticWarm = true
    public var accessLog = true
    public var metricsAllowRemote = false
    public var benchmarkRoutes = false
    /// Map tiles of the creation page (Leaflet URL template); its origin is added to the CSP's img-src.
    public var mapTileURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// A draft untouched for this long is deleted with its photo files.
    public var draftRetentionSeconds = 604_800

    // Upstream platform; all three unset = embedded local platform
    public var platformURL: String?
    public var consumerKey: String?
    public var consumerSecret: String?
    public var platformConnectTimeout = 10.0
    public var platformTimeout = 60.0
    public var platformProxy: String?

    // Local platform (`har platform`, and the embedded default)
    public var platformHost = "127.0.0.1"
    public var platformPort = 0
    public var platformDB: String?
    public var platformApps: String?
    public var platformSessionTTL = 86_400
    public var platformFaults: String?
    /// Comma-separated e-mails whose accounts the local platform reports as verified (`is_verified`),
    /// standing for the e-mail check a real platform makes.
    public var platformVerified: String?
    public var platformPhotoLimitBytes = 30 * 1024 * 1024

    // Upload worker
    public var workerEnabled = true
    public var workerReportsAtOnce = 4
    public var workerPhotosAtOnce = 2
    /// How long a node's lease on a report lasts unrenewed: a dead node's reports are taken
    /// over after it. More than `platform_timeout`: no call starts that could outlast its lease.
    public var workerLeaseSeconds = 120.0
    public var retryBaseSeconds = 2.0
    public var retryCapSeconds = 600.0
    public var photoRetentionSeconds = 7 * 86_400

    // Web sessions: idle timeout and absolute lifetime
    public var sessionIdleSeconds = 7 * 86_400
    public var sessionMaxSeconds = 30 * 86_400
    // Room for uploads: the temporary folder's cap, the free disk space kept
    public var uploadTempMaxBytes = 1 << 30
    public var uploadMinFreeBytes = 512 << 20
    // Slow clients: the request head's deadline and the slowest body accepted
    public var headerTimeoutSeconds = 10
    public var minBodyBytesPerSecond = 1024
    // Per-user photo quotas
    public var photosPerDay = 500
    public var photoBytesPerUser = 2 << 30
    // Several web nodes on one PostgreSQL; unset = SQLite in the data folder
    /// A `postgresql://` URL or libpq key=value string; it may hold a password: never logged or shown.
    public var databaseURL: String?
    public var databasePoolSize = 8
    /// PostgreSQL is not snapshotted by `har serve`: start migrates it only once the operator says a
    /// backup (pg_dump) was taken, here or with `har serve --i-have-a-backup`.
    public var databaseBackupTaken = false
    /// One photo folder shared by every node (NFS or the like); unset = `<data_dir>/photos`.
    public var photoDir: String?
    /// This node's name among the nodes (its uploads folder under `photo_dir`); unset = host name and port.
    public var nodeID: String?
    // Coordinators' review
    /// Comma-separated e-mails who are coordinators from their next request (besides `har users grant`).
    public var coordinators: String?
    /// Which reports wait for a coordinator's approval before upload: none, kiosk, all.
    public var reviewPolicy = "kiosk"
    // Kiosks
    /// Seconds without a touch before a kiosk asks "still there?".
    public var kioskIdleSeconds = 90
    /// Seconds of the "still there?" countdown before the visitor's report is discarded.
    public var kioskCountdownSeconds = 30
    // Backups (docs/OPERATIONS.md)
    /// Where `har serve` writes scheduled backups (and `har backup create` by default); unset = none scheduled.
    public var backupDir: String?
    /// Seconds between scheduled backups.
    public var backupInterval = 86_400
    /// Grandfather-father-son retention: newest backups kept per day, per week, per month.
    public var backupKeep = "7,4,12"
    /// The key that signs backups and that verify and restore then require (`BackupSignature`); a secret.
    public var backupKey: String?
    // Mail (docs/NOTIFICATIONS.md); no smtp_url = no mail sent
    /// `smtp://host:587` (STARTTLS when offered) or `smtps://host:465` (TLS from the start).
    public var smtpURL: String?
    public var smtpFrom: String?
    public var smtpUser: String?
    /// From `HAR_SMTP_PASSWORD` only: no config file holds it, nothing logs or prints it.
    public var smtpPassword: String?
    /// PEM authorities trusted for the SMTP server's certificate; unset = the system's.
    public var smtpCAFile: String?
    public var smtpTimeoutSeconds = 60.0
    /// This site's address as people reach it, for the links in mail; unset = from host, port and TLS.
    public var publicURL: String?
    /// Mails a coordinator who chose each report gets in an hour at most; the rest wait for the next
    /// hour's digest.
    public var mailImmediatePerHour = 10

    public init() {}

    /// `allowed_hosts` split at commas, trimmed; nil when unset.
    var allowedHostNames: [String]? {
        allowedHosts.map { $0.split(separator: ",").map { Text.trimmed(String($0)) } }
    }

    /// Whether the server listens on loopback only.
    var listensOnLoopbackOnly: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.") }

    /// The `Host` names answered besides IP addresses and localhost (always answered): `allowed_hosts`.
    var hostAllowlist: HostAllowlist { HostAllowlist(allowedHostNames ?? []) }

    /// Whether an upstream platform was configured; otherwise the embedded local platform is used.
    public var usesUpstreamPlatform: Bool { platformURL != nil }
}

/// A configuration that cannot be used; the message names the key and says why.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }
    init(_ message: String) { self.message = message }
}
