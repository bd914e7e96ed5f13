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

/// The platform sessions that were refused, per user, as fingerprints (never the id itself): the
/// worker makes no call with one again, and resumes the user's reports when the user's session in
/// the table is another one (a new sign-in).
final class FailedSessions: Sendable {
    private let fingerprints = Mutex<[Int64: String]>([:])

    func remember(userID: Int64, session: OutboxSession) {
        fingerprints.withLock { $0[userID] = session.fingerprint }
    }

    func forget(userID: Int64) { _ = fingerprints.withLock { $0.removeValue(forKey: userID) } }

    func hasFailed(userID: Int64, session: OutboxSession) -> Bool {
        fingerprints.withLock { $0[userID] } == session.fingerprint
    }
}
