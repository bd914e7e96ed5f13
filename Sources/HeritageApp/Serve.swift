/// `har serve`: start the application, wait for SIGINT or SIGTERM, stop cleanly, exit 0.
enum Serve {
    static func run(_ configuration: Configuration) -> Int32 {
        let log = Log()
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
        let scheme = configuration.tlsCert == nil ? "http" : "https"
        log.info(
            "Heritage at Risk \(Command.version) listening on \(scheme)://\(configuration.host):\(application.port)")
        let signal = Signals.wait()
        log.info("signal \(signal): stopping (finishing requests in flight)")
        application.stop(gracePeriod: 10)
        log.info("stopped")
        return 0
    }
}
