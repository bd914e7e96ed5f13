/// How the upload worker runs, from the configuration (`worker_*`, `retry_*`, `photo_retention_seconds`).
struct WorkerSettings: Sendable {
    var reportsAtOnce = 4
    var photosAtOnce = 2
    var retryBaseSeconds = 2.0
    var retryCapSeconds = 600.0
    var photoRetentionSeconds = 7.0 * 86_400
    /// How often the worker looks at the table unasked: `har outbox` (another process) cannot wake it,
    /// and a cheap indexed query a second costs nothing.
    var pollSeconds = 1.0
    /// How often stored photos past their retention are removed.
    var sweepSeconds = 60.0
    /// Reconciliation adopts a platform report created at most this long before our first create
    /// attempt: the platform's clock and ours are not the same clock.
    var clockSlackSeconds = 300.0
    /// This node's name in the leases (`node_id`, else the host name and port).
    var nodeID = "node"
    /// A report's lease unrenewed: renewed every third of it while the report is worked on.
    var leaseSeconds = 120.0
    /// The longest a platform call may take (`platform_timeout`): no call starts unless the lease
    /// lasts that long still, and a second more.
    var callTimeoutSeconds = 60.0

    init() {}

    init(configuration: Configuration) {
        reportsAtOnce = configuration.workerReportsAtOnce
        photosAtOnce = configuration.workerPhotosAtOnce
        retryBaseSeconds = configuration.retryBaseSeconds
        retryCapSeconds = configuration.retryCapSeconds
        photoRetentionSeconds = Double(configuration.photoRetentionSeconds)
        nodeID = configuration.nodeName
        leaseSeconds = configuration.workerLeaseSeconds
        callTimeoutSeconds = configuration.platformTimeout
    }

    /// Capped exponential backoff with full jitter (a uniformly random delay up to the capped
    /// exponential), so that reports failing together do not retry together. A Retry-After from the
    /// platform is a floor: it knows better than our guess.
    func retryDelay(failuresInARow: Int, retryAfter: Double?) -> Double {
        let exponent = Double(min(max(failuresInARow, 0), 40))
        let ceiling = min(retryCapSeconds, retryBaseSeconds * pow2(exponent))
        let drawn = Double.random(in: 0...max(ceiling, 0))
        return max(drawn, min(retryAfter ?? 0, 86_400))
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
