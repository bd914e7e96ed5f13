import Dispatch
import FoundationEssentials

/// The outbox store as the worker calls it: store calls block (a commit waits for fsync), so they run
/// on this queue, never on the Swift concurrency pool (two threads on this machine) nor on an MHD thread.
final class OutboxQueue: Sendable {
    let outbox: any OutboxStore
    let leases: any OutboxLeases
    private let queue = DispatchQueue(label: "har.worker.store")

    init(_ outbox: any OutboxStore, leases: any OutboxLeases) {
        self.outbox = outbox
        self.leases = leases
    }

    /// Runs blocking store work on the queue and suspends the caller meanwhile.
    func run<T: Sendable>(_ work: @escaping @Sendable (any OutboxStore) throws -> T) async throws -> T {
        let outbox = outbox
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work(outbox) }) }
        }
    }

    /// The same for the leases.
    func lease<T: Sendable>(_ work: @escaping @Sendable (any OutboxLeases) throws -> T) async throws -> T {
        let leases = leases
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work(leases) }) }
        }
    }
}
