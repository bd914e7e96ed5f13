import PlatformClient
import Synchronization

/// Waits for a platform call at most `seconds`, then gives up waiting with `retryLater`, so a page
/// shows its own clear message before the server's handler deadline answers a bare 503. The call
/// itself runs on to its own timeout on the client's threads (its answer, if any, is dropped).
///
/// Not a task group: a group waits for every child before it returns, and a curl transfer cannot be
/// cancelled from a task, so the page would wait for it all the same.
func withinDeadline<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T
{
    let once = ResumeOnce()
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Task {
            do {
                let value = try await body()
                if once.claim() { continuation.resume(returning: value) }
            } catch {
                if once.claim() { continuation.resume(throwing: error) }
            }
        }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            if once.claim() {
                continuation.resume(
                    throwing: PlatformError.retryLater(retryAfter: nil, reason: "no answer within \(Int(seconds))s"))
            }
        }
    }
}

/// True for the first caller only: a continuation is resumed exactly once.
private final class ResumeOnce: Sendable {
    private let done = Mutex(false)
    func claim() -> Bool {
        done.withLock { done in
            if done { return false }
            done = true
            return true
        }
    }
}
