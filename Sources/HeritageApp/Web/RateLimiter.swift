import Synchronization

/// Counts attempts per key in a sliding window, in memory (sign-in: per IP and per e-mail). A restart
/// forgets the counts, which is acceptable: the platform has its own limits, this one blunts guessing.
final class RateLimiter: Sendable {
    let limit: Int
    let window: Double
    /// Most keys remembered; past it, keys whose attempts are all outside the window are dropped first,
    /// so a flood of made-up e-mails cannot grow memory without bound.
    let maximumKeys: Int
    private let attempts = Mutex<[String: [Double]]>([:])

    init(limit: Int = 10, window: Double = 300, maximumKeys: Int = 50_000) {
        self.limit = limit
        self.window = window
        self.maximumKeys = maximumKeys
    }

    /// Records one attempt for every key, unless one of them is already at its limit (then nothing is
    /// recorded and false is returned).
    func allow(_ keys: [String], now: Double) -> Bool {
        attempts.withLock { table in
            let since = now - window
            for key in keys {
                let recent = (table[key] ?? []).filter { $0 > since }
                table[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit { return false }
            }
            if table.count + keys.count > maximumKeys {
                table = table.filter { $0.value.contains { $0 > since } }
                if table.count + keys.count > maximumKeys { table.removeAll() }
            }
            for key in keys { table[key, default: []].append(now) }
            return true
        }
    }
}
