// How the server listens and what it accepts. Plain values, decided before `start()`.

/// Limits that protect the process from clients, all enforced while a request arrives.
public struct ServerLimits: Sendable {
    /// Largest request body (urlencoded, multipart or raw); a route may lower or raise it.
    public var maxBodyBytes: Int
    /// Largest single file part of a multipart body.
    public var maxFileBytes: Int
    /// Most file parts in one multipart body.
    public var maxFiles: Int
    /// Open connections in all (MHD_OPTION.CONNECTION_LIMIT).
    public var maxConnections: Int
    /// Open connections from one IP address (MHD_OPTION.PER_IP_CONNECTION_LIMIT); 0 = no limit.
    public var maxConnectionsPerIP: Int
    /// A connection with no traffic for this long is closed (MHD_OPTION.CONNECTION_TIMEOUT).
    public var idleTimeoutSeconds: Int
    /// An async handler still running after this long gets its request answered 503.
    public var handlerDeadlineSeconds: Double
    /// Largest body kept in memory: non-form bodies (JSON) and the text fields of a form.
    public var maxInMemoryBodyBytes: Int
    /// The request line and headers must be in within this many seconds of the connection opening
    /// (of the previous request's end plus the idle timeout, on a kept-alive connection); 0 = no
    /// deadline but the idle timeout.
    public var headerTimeoutSeconds: Double
    /// A body must arrive at this average rate or better once it has had `headerTimeoutSeconds` (10 s
    /// without one); 0 = no minimum.
    public var minimumBodyBytesPerSecond: Int
    /// libmicrohttpd's memory pool per connection (MHD_OPTION.CONNECTION_MEMORY_LIMIT). The request
    /// head (request line and fields) must fit in half of it less 352 bytes (measured with 0.9.75: 11,936
    /// bytes at 24 KiB), a larger one gets 431; MHD reads a body in pieces of about half of it. MHD
    /// zeroes the pool before every request of a kept-alive connection, so its size is paid on each
    /// request. docs/HTTP.md, "Connection memory"; docs/BENCHMARKS.md says how the default was chosen.
    public var connectionMemoryBytes: Int = 24 * 1024
    /// Most fields (text parts) in one form body; a route may raise it. Without it, `a=&a=&…` makes
    /// a million fields of a 4 MB body, each an array and a string, far more memory than its bytes.
    public var maxFormFields: Int = 1000

    public init(
        maxBodyBytes: Int = 64 << 20, maxFileBytes: Int = 32 << 20, maxFiles: Int = 20,
        maxConnections: Int = 1000, maxConnectionsPerIP: Int = 64, idleTimeoutSeconds: Int = 30,
        handlerDeadlineSeconds: Double = 30, maxInMemoryBodyBytes: Int = 1 << 20, headerTimeoutSeconds: Double = 0,
        minimumBodyBytesPerSecond: Int = 0
    ) {
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
        self.maxBodyBytes = maxBodyBytes
        self.maxFileBytes = maxFileBytes
        self.maxFiles = maxFiles
        self.maxConnections = maxConnections
        self.maxConnectionsPerIP = maxConnectionsPerIP
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.handlerDeadlineSeconds = handlerDeadlineSeconds
        self.maxInMemoryBodyBytes = maxInMemoryBodyBytes
    }
}

public struct ServerConfiguration: Sendable {
    /// An IPv4 or IPv6 literal to bind to ("127.0.0.1", "0.0.0.0", "::1").
    public var host: String
    /// 0 asks the kernel for a free port; `HTTPServer.port` tells which.
    public var port: Int
    /// MHD poll threads. Four on a two-core machine: poll threads never wait on the network (async
    /// handlers suspend their connection), but inline handlers do brief disk and SQLite work, and a few
    /// spare threads keep one slow page from holding up the connections sharing its thread.
    public var threadCount: Int
    public var limits: ServerLimits
    /// Where multipart file parts and spooled bodies are written while a request is handled. Keep it on
    /// the same file system as the data folder so handlers can `rename` uploads into place.
    public var temporaryDirectory: String
    /// PEM certificate (chain) and key; both set = HTTPS.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// Added to every response, errors and static files included, unless the handler set the same name.
    public var securityHeaders: Headers
    /// The `Host` names answered (against DNS rebinding); nil answers any.
    public var allowedHosts: HostAllowlist?
    /// Proxies whose forwarding fields name the client (`Request.remoteAddress`); none by default.
    public var trustedProxies = TrustedProxies.none
    /// zlib level (1…9) for pages and JSON built per request, sent gzip-compressed to clients that take
    /// it; 0 sends them as they are. Static assets are compressed once, at the highest levels, apart
    /// from this (StaticFiles). docs/BENCHMARKS.md says how the default was chosen.
    public var gzipLevel: Int32 = 4

    public static let defaultSecurityHeaders = Headers([
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; "
                + "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; "
                + "form-action 'self'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("X-Frame-Options", "DENY"),
    ])

    public init(
        host: String = "127.0.0.1", port: Int = 8080, threadCount: Int = 4, limits: ServerLimits = ServerLimits(),
        temporaryDirectory: String = "./data/tmp", tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil,
        securityHeaders: Headers = ServerConfiguration.defaultSecurityHeaders
    ) {
        self.host = host
        self.port = port
        self.threadCount = threadCount
        self.limits = limits
        self.temporaryDirectory = temporaryDirectory
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsKeyPath = tlsKeyPath
        self.securityHeaders = securityHeaders
    }

    var isTLS: Bool { tlsCertificatePath != nil && tlsKeyPath != nil }
}

/// One line of the access log. Deliberately without query string, headers, cookies or body: those
/// carry session tokens and personal data.
public struct AccessLogEntry: Sendable {
    /// Seconds since 1970 when the request line arrived.
    public var time: Double
    public var method: String
    public var path: String
    /// 0 when the client went away before an answer was queued.
    public var status: Int
    /// Response body bytes.
    public var bytes: Int
    public var durationSeconds: Double
    public var remoteAddress: String

    public init(
        time: Double, method: String, path: String, status: Int, bytes: Int, durationSeconds: Double,
        remoteAddress: String
    ) {
        self.time = time
        self.method = method
        self.path = path
        self.status = status
        self.bytes = bytes
        self.durationSeconds = durationSeconds
        self.remoteAddress = remoteAddress
    }
}

public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    case invalidHost(String)
    case cannotReadTLSFile(path: String)
    case cannotStart(address: String, reason: String)
    case cannotCreateTemporaryDirectory(String)

    public var description: String {
        switch self {
        case .invalidHost(let host): return "not an IP address to listen on: \(host)"
        case .cannotReadTLSFile(let path): return "cannot read TLS file \(path)"
        case .cannotStart(let address, let reason): return "cannot listen on \(address): \(reason)"
        case .cannotCreateTemporaryDirectory(let path): return "cannot create temporary directory \(path)"
        }
    }
}
