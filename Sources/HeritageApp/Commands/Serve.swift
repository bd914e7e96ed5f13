import FoundationEssentials
import HTTPServer

/// `har serve`: start the application (every step of it is `Application.start`: the scheduled backups and
/// systemd's notification too), wait for SIGINT or SIGTERM, stop cleanly, exit 0.
enum Serve {
    static func run(_ configuration: Configuration) -> Int32 {
        let log = Log()
        ProcessMemory.keepLargeAllocationsApart()
        let application: Application
        do {
            application = try buildApplication(
                configuration: configuration, log: log, serviceEnvironment: ProcessInfo.processInfo.environment)
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
        let signal = Signals.wait()
        log.info("signal \(signal): stopping (finishing requests in flight)")
        application.stop(gracePeriod: 10)
        log.info("stopped")
        return 0
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
