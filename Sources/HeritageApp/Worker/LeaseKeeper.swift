import Basics
import Synchronization

/// The worker's lease on one report while a task drives it: renewed in the background every
/// third of its length, and before each platform call so that no call starts whose timeout reaches
/// past the lease. Once renewal fails the lease is lost for good: another node has the report, and
/// every step of this task throws `LeaseLost` before it calls or writes anything.
final class LeaseKeeper: Sendable {
    private let current: Mutex<(lease: Lease, lost: Bool)>
    private let queue: OutboxQueue
    private let duration: Double

    init(_ lease: Lease, queue: OutboxQueue, duration: Double) {
        current = Mutex((lease, false))
        self.queue = queue
        self.duration = duration
    }

    /// The lease as last renewed, for the fence of each transition.
    var lease: Lease { current.withLock { $0.lease } }

    /// Makes sure the lease lasts `seconds` more from now, renewing it when it would not; throws
    /// `LeaseLost` when it was lost (taken over after it lapsed, or this node was paused past it).
    func ensure(_ seconds: Double) async throws {
        let (lease, lost) = current.withLock { ($0.lease, $0.lost) }
        if lost { throw LeaseLost(reportID: lease.reportID) }
        if lease.until - WallClock.now() >= seconds { return }
        try await renew()
        let until = current.withLock { $0.lease.until }
        if until - WallClock.now() < seconds { throw LeaseLost(reportID: lease.reportID) }
    }

    /// Renews now (same node and epoch, not lapsed); marks the lease lost when it cannot.
    func renew() async throws {
        let lease = self.lease
        let now = WallClock.now()
        let duration = duration
        let renewed = try await queue.lease { try $0.renew(lease, now: now, duration: duration) }
        current.withLock { state in
            if renewed {
                state.lease.until = max(state.lease.until, now + duration)
            } else {
                state.lost = true
            }
        }
        if !renewed { throw LeaseLost(reportID: lease.reportID) }
    }

    /// Renews every third of the lease until the task is cancelled or the lease lost; a store failure
    /// is tried again next time.
    func keepRenewing() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(duration / 3))
            if Task.isCancelled { return }
            do {
                try await renew()
            } catch is LeaseLost {
                return
            } catch {
                continue
            }
        }
    }

    /// Gives the lease back once the store answers again, trying every second until it lapses or the
    /// worker stops. After a store failure (the database stopped and started again, a pooled
    /// connection that broke meanwhile), the report is taken up as soon as the database is back,
    /// rather than when the lease lapses, up to `worker_lease_seconds` later.
    func releaseWhenTheStoreAnswers(isStopping: @Sendable () -> Bool) async {
        while !isStopping() {
            let lease = self.lease
            if (try? await queue.lease({ try $0.release(lease) })) != nil { return }
            guard WallClock.now() + 1 < lease.until else { return }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
