import Synchronization

/// One holder per key at a time, the others wait in order (an async mutex per key).
final class KeyedGate: Sendable {
    private let waiters = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    func withExclusive<T>(_ key: String, _ body: () async throws -> T) async rethrows -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = waiters.withLock { waiters -> Bool in
                if waiters[key] == nil {
                    waiters[key] = []
                    return true
                }
                waiters[key, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer { release(key) }
        return try await body()
    }

    /// Whether someone holds `key` (tests).
    func isHeld(_ key: String) -> Bool { waiters.withLock { $0[key] != nil } }

    /// How many wait for `key` behind its holder (tests).
    func waitingCount(_ key: String) -> Int { waiters.withLock { $0[key]?.count ?? 0 } }

    private func release(_ key: String) {
        let next = waiters.withLock { waiters -> CheckedContinuation<Void, Never>? in
            guard var queue = waiters[key], !queue.isEmpty else {
                waiters[key] = nil
                return nil
            }
            let first = queue.removeFirst()
            waiters[key] = queue
            return first
        }
        next?.resume()
    }
}
