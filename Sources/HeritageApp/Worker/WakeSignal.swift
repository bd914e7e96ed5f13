import Synchronization

/// Wakes the worker's loop: a new submission, a sign-in, a finished report, or a timer. Signals that
/// arrive while nobody waits are remembered (one is enough: the loop looks at the whole table).
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next signal, or after `seconds`, whichever comes first.
    func wait(seconds: Double) async {
        let timer = Task {
            try? await Task.sleep(for: .milliseconds(Int64(max(seconds, 0.001) * 1000)))
            if !Task.isCancelled { self.signal() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }
}

/// At most `limit` holders at once; the others wait in order. Bounds photo uploads over all reports.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(available: max(1, limit))) }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    func withPermit<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }
}
