import Dispatch
import Synchronization

/// The import's hand-over between the thread that reads the file and the one that writes the store:
/// at most `capacity` batches wait (so memory stays a few batches, whatever the file's size), the
/// reader blocks while they do, and it ends the pipe with `close`, with the error that stopped it or
/// none. The writer takes batches until the end; when it fails it `cancel`s, which makes every later
/// `put` refuse at once, and still takes until the end so that the reader has stopped before the file
/// is closed. Semaphores rather than a condition variable: the toolchain's `Mutex` has none.
final class SiteImportPipe: Sendable {
    /// A batch with what the reader had read when it was made, for the progress line.
    struct Batch: Sendable {
        var sites: [NewSite]
        var records: Int
        var bytesRead: Int
    }

    enum Item: Sendable {
        case batch(Batch)
        case end((any Error)?)
    }

    private let items = Mutex<[Item]>([])
    private let cancelled = Atomic<Bool>(false)
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)

    init(capacity: Int) { free = DispatchSemaphore(value: capacity) }

    /// The reader's: waits for room; false once the writer has given up (the reader should stop).
    func put(_ batch: Batch) -> Bool {
        guard !cancelled.load(ordering: .acquiring) else { return false }
        free.wait()
        guard !cancelled.load(ordering: .acquiring) else {
            free.signal()
            return false
        }
        items.withLock { $0.append(.batch(batch)) }
        ready.signal()
        return true
    }

    /// The reader's last call, whatever happened: the writer's `take` then returns the end.
    func close(_ error: (any Error)?) {
        items.withLock { $0.append(.end(error)) }
        ready.signal()
    }

    /// The writer's: the next batch or the end, waiting for one.
    func take() -> Item {
        ready.wait()
        let item = items.withLock { $0.removeFirst() }
        if case .batch = item { free.signal() }
        return item
    }

    /// The writer's, when it fails: the reader's next `put` (or the one it waits in) returns false.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        free.signal()
    }
}
