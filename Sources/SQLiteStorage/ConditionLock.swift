import Glibc

/// A pthread mutex with one condition variable.
///
/// Heap-allocated because pthread objects must not move, which Swift does not promise for stored
/// properties of a class.
final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call only while holding the lock (inside `withLock`).
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    func signal() {
        pthread_cond_signal(condition)
    }

    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
