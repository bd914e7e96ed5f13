import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (decoding an image, fsync) on threads of its own, at most `limit` jobs at once,
/// the rest waiting in order. A Swift concurrency pool thread blocked on such work would stall every
/// task of the process (the pool has as many threads as cores: 2 here); the awaiting task suspends
/// instead. Jobs run on a Dispatch queue, not on the pool, or, for `.background`, on threads of its own
/// at a lower CPU priority.
final class BlockingWork: Sendable {
    /// Where the jobs run.
    enum Threads: Sendable {
        /// Dispatch's threads, at the process's priority.
        case shared
        /// Threads of this object's own, each started when a slot starts and ended when no job waits
        /// for it, `nice` steps below the process's CPU priority (Linux keeps a nice value per thread;
        /// threads these start inherit it). For CPU-heavy work that must not delay requests: photo
        /// decoding, whose libvips worker threads are started from these threads and so run at the same
        /// priority (docs/BENCHMARKS.md "Photo uploads against /healthz").
        case background(nice: Int32)
    }

    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
    }

    let label: String
    private let limit: Int
    private let threads: Threads
    private let queue: DispatchQueue
    private let state = Mutex(State())
    /// Tests only (nothing in the application sets it): while set and shut, each job waits at its start.
    private let hold = Mutex<JobHold?>(nil)

    init(label: String, limit: Int, threads: Threads = .shared) {
        self.label = label
        self.limit = max(1, limit)
        self.threads = threads
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

    /// Jobs running and jobs waiting for a slot, now.
    var load: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waiting.count) }
    }

    /// For tests: from now on every job waits at its start until the returned hold is opened, so that a
    /// test can see what the server does while every slot is busy (no timing involved).
    func holdJobs() -> JobHold {
        let made = JobHold()
        hold.withLock { $0 = made }
        return made
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
        let slot: @Sendable () -> Void = {
            var next: (@Sendable () -> Void)? = job
            while let current = next {
                self.hold.withLock { $0 }?.pass()
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
        switch threads {
        case .shared:
            queue.async(execute: slot)
        case .background(let nice):
            if !BackgroundThread.start(name: label, nice: nice, slot) { queue.async(execute: slot) }
        }
    }
}

extension BlockingWork {
    /// The calling thread's nice value (Linux keeps one per thread: PRIO_PROCESS with 0 names the
    /// calling thread only).
    static func threadNice() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
}

/// A test's hand on a `BlockingWork`: jobs that start while it is shut wait until `open()`.
final class JobHold: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let opened = Atomic<Bool>(false)
    private let waiting = Atomic<Int>(0)

    /// Jobs waiting at the hold now.
    var held: Int { waiting.load(ordering: .acquiring) }

    /// Lets every held job go, and every later one through.
    func open() {
        opened.store(true, ordering: .releasing)
        gate.signal()
    }

    fileprivate func pass() {
        guard !opened.load(ordering: .acquiring) else { return }
        waiting.add(1, ordering: .acquiringAndReleasing)
        gate.wait()
        gate.signal()  // the next one waiting passes too
        waiting.subtract(1, ordering: .acquiringAndReleasing)
    }
}

/// A detached thread at a lower CPU priority, for `BlockingWork.Threads.background`.
private enum BackgroundThread {
    final class Start {
        let name: String
        let nice: Int32
        let body: @Sendable () -> Void
        init(name: String, nice: Int32, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.nice = nice
            self.body = body
        }
    }

    /// False when no thread could be made (the caller runs the work elsewhere).
    static func start(name: String, nice: Int32, _ body: @escaping @Sendable () -> Void) -> Bool {
        #if os(Linux)
            let start = Unmanaged.passRetained(Start(name: name, nice: nice, body: body)).toOpaque()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            var thread = pthread_t()
            let made = pthread_create(
                &thread, &attributes,
                { argument in
                    guard let argument else { return nil }
                    let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                    // Linux: PRIO_PROCESS with 0 names the calling thread only. Raising one's own nice
                    // value needs no privilege; failing to is harmless (the work runs at normal priority).
                    let current = BlockingWork.threadNice()
                    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, current + start.nice)
                    // Named for top -H and bench/load.py (pthread_setname_np is not visible from Swift).
                    let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
                    if comm >= 0 {
                        let name = Array(start.name.utf8.prefix(15))
                        _ = name.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
                        close(comm)
                    }
                    start.body()
                    return nil
                }, start)
            if made != 0 {
                Unmanaged<Start>.fromOpaque(start).release()
                return false
            }
            return true
        #else
            return false
        #endif
    }
}
