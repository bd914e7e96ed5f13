import Glibc

/// A value that many threads read at once and that changes seldom, behind a pthread read-write lock:
/// readers never wait for each other, only for a writer.
///
/// Why not `Synchronization.Mutex`: on Linux it is a priority-inheritance futex, which puts a thread
/// that finds it taken to sleep in the kernel at once. Every MHD thread answering the same 304 looked
/// the same kept response up under one such lock; under wrk half of the MHD threads' context switches
/// were waits for it (`perf record -e sched:sched_switch`, docs/BENCHMARKS.md).
public final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    // Heap-allocated: a pthread object must not move, which Swift does not promise for a stored property.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    /// Read only under the read lock, changed only under the write lock.
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// `body` with the value, alongside any other reader.
    public func read<T>(_ body: (borrowing Value) throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// `body` with the value to change, alone.
    public func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
