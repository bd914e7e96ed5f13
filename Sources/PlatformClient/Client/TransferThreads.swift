#if canImport(Glibc)
    import Glibc
#endif

/// A small fixed set of POSIX threads that run blocking curl transfers, fed by a bounded queue.
/// Blocking calls must never run on the Swift concurrency pool (as many threads as cores: one stuck
/// transfer would starve every task) nor on an MHD thread. Each thread keeps one curl handle so that
/// connections are reused between calls.
final class TransferThreads: @unchecked Sendable {
    typealias Job = @Sendable (CurlEasy) -> Void

    // All mutable state below is guarded by `mutex`, hence @unchecked Sendable.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Job] = []
    private var head = 0
    private var stopping = false
    private let capacity: Int

    /// Starts `count` threads. Returns nil if the system refuses to create any.
    init?(count: Int, capacity: Int) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        CurlGlobal.initializeOnce()
        var started = 0
        for _ in 0..<max(1, count) {
            var thread = pthread_t()
            // Each thread owns one retain, released when it exits.
            let argument = Unmanaged.passRetained(self).toOpaque()
            if pthread_create(&thread, nil, transferThreadMain, argument) == 0 {
                pthread_detach(thread)
                started += 1
            } else {
                Unmanaged<TransferThreads>.fromOpaque(argument).release()
            }
        }
        if started == 0 { return nil }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues a job; false when the queue is full or the threads are stopping (the caller answers
    /// "retry later" at once instead of piling up work).
    func submit(_ job: @escaping Job) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !stopping, queue.count - head < capacity else { return false }
        queue.append(job)
        pthread_cond_signal(condition)
        return true
    }

    /// Lets the threads finish the queued jobs and exit.
    func shutdown() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    fileprivate func runWorker() {
        let easy = CurlEasy()
        while let job = next() { job(easy) }
    }

    private func next() -> Job? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while head == queue.count && !stopping { pthread_cond_wait(condition, mutex) }
        guard head < queue.count else { return nil }
        let job = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }
}

private func transferThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let threads = Unmanaged<TransferThreads>.fromOpaque(argument).takeRetainedValue()
    threads.runWorker()
    return nil
}
