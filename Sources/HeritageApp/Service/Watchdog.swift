import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's watchdog (`WatchdogSec=`), kept honestly: `WATCHDOG=1` is sent only after the server's
/// own listener answered a request (`/healthz`, which reads the store) and the store answered, so a
/// process whose HTTP threads or database hang stops pinging and systemd restarts it.
final class Watchdog: @unchecked Sendable {
    private let notifier: ServiceNotifier
    private let intervalSeconds: Double
    private let check: @Sendable () -> Bool
    /// Signalled once, by `stop`: wakes the thread from its wait between pings.
    private let stopping = DispatchSemaphore(value: 0)
    private var thread: pthread_t?

    /// The watchdog systemd asked for (`WATCHDOG_USEC`, for this process when `WATCHDOG_PID` is set),
    /// pinging twice per period as sd_watchdog_enabled(3) advises; nil when none was asked for.
    init?(environment: [String: String], notifier: ServiceNotifier, check: @escaping @Sendable () -> Bool) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Double(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], pid != String(getpid()) { return nil }
        self.notifier = notifier
        intervalSeconds = microseconds / 2_000_000
        self.check = check
    }

    /// Pings on a thread of its own: the check blocks on a socket and the store, never on the pool.
    func start() {
        let box = Unmanaged.passRetained(self)  // released by the thread when its loop ends
        var handle = pthread_t()
        let created = pthread_create(
            &handle, nil,
            { argument in
                guard let argument else { return nil }
                let watchdog = Unmanaged<Watchdog>.fromOpaque(argument).takeRetainedValue()
                watchdog.run()
                return nil
            }, box.toOpaque())
        if created == 0 {
            thread = handle
        } else {
            box.release()
        }
    }

    /// Ends the pings and waits for the thread; call once, from the thread that called `start`.
    func stop() {
        stopping.signal()
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func run() {
        repeat {
            if check() { notifier.send("WATCHDOG=1") }
        } while stopping.wait(timeout: .now() + intervalSeconds) == .timedOut
    }
}
