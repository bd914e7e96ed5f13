import FoundationEssentials
import HTTPServer

/// `har serve`: start the application, wait for SIGINT or SIGTERM, stop cleanly, exit 0.
enum Serve {
    static func run(_ configuration: Configuration) -> Int32 {
        let log = Log()
        ProcessMemory.keepLargeAllocationsApart()
        let application: Application
        do {
            application = try buildApplication(configuration: configuration, log: log)
        } catch {
            Command.printError("\(error)")
            return 1
        }
        do {
            try application.start()
        } catch {
            Command.printError("\(error)")
            application.stop(gracePeriod: 0)
            return 1
        }
        let backups = BackupSchedule(
            configuration: configuration, metrics: application.metrics.backups, log: log, stores: application.stores)
        do {
            try backups?.start()
        } catch {
            log.error("scheduled backups are off: \(error)")
        }
        let watchdog = notifyServiceManager(application, log: log)
        let signal = Signals.wait()
        log.info("signal \(signal): stopping (finishing requests in flight)")
        if let notifier = ServiceNotifier(environment: ProcessInfo.processInfo.environment) {
            notifier.send("STOPPING=1")
        }
        watchdog?.stop()
        backups?.stop()
        application.stop(gracePeriod: 10)
        log.info("stopped")
        return 0
    }

    /// Tells systemd (`Type=notify`) that the server answers, and starts the watchdog's pings when the
    /// unit asked for them; nothing without a service manager.
    static func notifyServiceManager(_ application: Application, log: Log) -> Watchdog? {
        let environment = ProcessInfo.processInfo.environment
        guard let notifier = ServiceNotifier(environment: environment) else { return nil }
        if !notifier.send("READY=1\nSTATUS=serving on port \(application.port)") {
            log.warning("could not tell the service manager at NOTIFY_SOCKET that the server is ready")
        }
        let configuration = application.configuration
        let probe = ListenerProbe(
            host: configuration.host, port: application.port, speaksTLS: configuration.tlsCert != nil)
        let health = Health(store: application.stores.instance)
        let watchdog = Watchdog(environment: environment, notifier: notifier) {
            probe.answers() && health.storeIsHealthy
        }
        watchdog?.start()
        return watchdog
    }

    /// What an operator should know at start about how exposed the server is; empty on loopback.
    static func exposureWarnings(_ configuration: Configuration) -> [String] {
        var warnings: [String] = []
        if !configuration.listensOnLoopbackOnly && configuration.tlsCert == nil {
            warnings.append(
                "listening on \(configuration.host) over plain HTTP: passwords and session cookies cross the "
                    + "network unencrypted and browsers refuse the camera and location; set tls_cert and tls_key "
                    + "(har tls self-signed --host NAME) or listen on 127.0.0.1 behind a TLS proxy")
        }
        if !configuration.listensOnLoopbackOnly && configuration.allowedHosts == nil {
            warnings.append(
                "no allowed_hosts: only IP addresses and localhost are answered, host names get 400; "
                    + "set allowed_hosts to the names the tablets use")
        }
        return warnings
    }
}
