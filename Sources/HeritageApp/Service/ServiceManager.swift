import Synchronization

/// `har serve`'s side of systemd's notification protocol (`Type=notify`, `WatchdogSec=`), started and
/// stopped with the application (`Application.start`/`stop`): `READY=1` once the server listens and
/// everything else has started, then the watchdog's pings when the unit asked for them, and
/// `STOPPING=1` when it stops. Nil without a service manager (`NOTIFY_SOCKET` unset).
final class ServiceManager: Sendable {
    private let notifier: ServiceNotifier
    private let environment: [String: String]
    private let watchdog = Mutex<Watchdog?>(nil)

    init?(environment: [String: String]) {
        guard let notifier = ServiceNotifier(environment: environment) else { return nil }
        self.notifier = notifier
        self.environment = environment
    }

    /// The server answers on `port`: says so, and starts the watchdog, which pings only while `probe`
    /// reaches the server's own listener and `health`'s store answers.
    func ready(port: Int, probe: ListenerProbe, health: Health, log: Log) {
        if !notifier.send("READY=1\nSTATUS=serving on port \(port)") {
            log.warning("could not tell the service manager at NOTIFY_SOCKET that the server is ready")
        }
        let started = Watchdog(environment: environment, notifier: notifier) {
            probe.answers() && health.storeIsHealthy
        }
        started?.start()
        watchdog.withLock { $0 = started }
    }

    /// The server stops: says so, and ends the watchdog's pings (before the server stops answering).
    func stopping() {
        notifier.send("STOPPING=1")
        let running = watchdog.withLock { current -> Watchdog? in
            defer { current = nil }
            return current
        }
        running?.stop()
    }
}
