/// Where the platform is and how to talk to it. The secret is never logged (see `description`).
public struct PlatformConfiguration: Sendable, CustomStringConvertible {
    /// `https://api.heobs.org`, or the local platform's `http://127.0.0.1:port`. No trailing "/" needed.
    public var baseURL: String
    public var consumerKey: String
    public var consumerSecret: String
    /// Seconds to establish the connection (TCP + TLS).
    public var connectTimeout: Double
    /// Seconds for the whole call; a 25 MB photo on a slow link needs more than a JSON call.
    public var totalTimeout: Double
    /// Abort when slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` seconds (a stalled link).
    public var lowSpeedLimit: Int
    public var lowSpeedTime: Int
    /// An explicit proxy; nil = none (proxy variables of the environment are ignored on purpose).
    public var proxy: String?
    /// A CA bundle to trust instead of the system's.
    public var caInfo: String?
    /// Threads that run transfers: at most this many calls at once.
    public var concurrentTransfers: Int
    /// Calls waiting for a thread beyond this are refused at once with `retryLater`.
    public var maxQueuedTransfers: Int
    /// Largest answer body kept; platform answers are small JSON.
    public var maxResponseBytes: Int

    public init(
        baseURL: String, consumerKey: String, consumerSecret: String, connectTimeout: Double = 10,
        totalTimeout: Double = 300, lowSpeedLimit: Int = 1024, lowSpeedTime: Int = 30, proxy: String? = nil,
        caInfo: String? = nil, concurrentTransfers: Int = 4, maxQueuedTransfers: Int = 256,
        maxResponseBytes: Int = 16 * 1024 * 1024
    ) {
        self.baseURL = baseURL
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.proxy = proxy
        self.caInfo = caInfo
        self.concurrentTransfers = concurrentTransfers
        self.maxQueuedTransfers = maxQueuedTransfers
        self.maxResponseBytes = maxResponseBytes
    }

    public var description: String {
        "PlatformConfiguration(baseURL: \(baseURL), consumerKey: \(consumerKey), consumerSecret: <redacted>)"
    }

    /// The full URL of an endpoint path such as "har/report".
    func url(for path: String) -> String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + path
    }
}
