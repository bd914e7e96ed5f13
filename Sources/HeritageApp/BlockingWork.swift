import Dispatch
import Synchronization

/// Runs blocking work (decoding an image, fsync) on threads of its own, at most `limit` jobs at once,
/// the rest waiting in order. A Swift concurrency pool thread blocked on such work would stall every
/// task of the process (the pool has as many threads as cores: 2 here); the awaiting task suspends
/// instead. Jobs run on a Dispatch queue, not on the pool.
final class BlockingWork: Sendable {
    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
    }

    private let limit: Int
    private let queue: DispatchQueue
    private let state = Mutex(State())

    init(label: String, limit: Int) {
        self.limit = max(1, limit)
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// Runs `work` off the concurrency pool and returns its result, or throws its error.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            submit {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    private func submit(_ job: @escaping @Sendable () -> Void) {
        let startNow = state.withLock { state -> Bool in
            guard state.running < limit else {
                state.waiting.append(job)
                return false
            }
            state.running += 1
            return true
        }
        if startNow { start(job) }
    }

    /// Runs a job, then the next waiting one on the same slot, until none waits.
    private func start(_ job: @escaping @Sendable () -> Void) {
        queue.async {
            var next: (@Sendable () -> Void)? = job
            while let current = next {
                current()
                next = self.state.withLock { state in
                    guard !state.waiting.isEmpty else {
                        state.running -= 1
                        return nil
                    }
                    return state.waiting.removeFirst()
                }
            }
        }
    }
}
