import LocalPlatform
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// `har platform`: the local Heritage Observatory platform as a process of its own. It prints
/// `listening on http://HOST:PORT` on standard output once it accepts requests (the embedded default
/// and scripts read that line), and stops cleanly on SIGINT or SIGTERM.
enum PlatformCommand {
    static func run(_ configuration: Configuration) -> Int32 {
        let log = Log()
        let server: LocalPlatformServer
        // Its accounts (password hashes), sessions and photos are the server's alone: SQLite makes its
        // database, -wal and -shm files 0644 under the usual umask, and the photos would be too.
        umask(0o077)
        do {
            try DataFolder.prepare(configuration.dataDir)
            let databasePath = configuration.platformDB ?? configuration.dataDir + "/platform.sqlite"
            // Files an older version left readable by others become private too.
            for suffix in ["", "-wal", "-shm"] { DataFolder.makePrivate(databasePath + suffix) }
            let apps: [String: String]
            if let text = configuration.platformApps {
                do { apps = try LocalPlatformConfiguration.parseApps(text) } catch {
                    throw ConfigurationError("bad value for platform_apps: expected key:secret[,key:secret]")
                }
            } else {
                let generated = try EmbeddedPlatform.credentials(in: configuration.dataDir)
                apps = [generated.key: generated.secret]
                log.info("consumer key \(generated.key); its secret is in \(configuration.dataDir)/platform-app.json")
            }
            var faults = FaultConfiguration()
            if let text = configuration.platformFaults {
                do { faults = try FaultConfiguration(parsing: text) } catch {
                    throw ConfigurationError("bad value for platform_faults: \(error.message)")
                }
                log.info("fault injection on: \(text)")
            }
            var platformConfiguration = LocalPlatformConfiguration(
                apps: apps, sessionTTL: Double(configuration.platformSessionTTL),
                photoLimitBytes: configuration.platformPhotoLimitBytes, dataDirectory: configuration.dataDir,
                faults: faults)
            platformConfiguration.verifiedEmails = Set(
                (configuration.platformVerified ?? "").split(separator: ",").map {
                    Text.trimmed(String($0)).lowercased()
                }.filter { !$0.isEmpty })
            platformConfiguration.caseSensitiveEmails = getenv("HAR_INTERNAL_TEST_CASE_SENSITIVE_EMAILS") != nil
            server = try LocalPlatformServer(
                configuration: platformConfiguration,
                databasePath: databasePath,
                host: configuration.platformHost, port: configuration.platformPort,
                errorLog: { log.error($0) })
            try server.start()
        } catch {
            Command.printError("\(error)")
            return 1
        }
        ParentWatch.stopWithParent()
        Log.write("listening on http://\(configuration.platformHost):\(server.port)\n", to: STDOUT_FILENO)
        _ = Signals.wait()
        server.stop()
        return 0
    }
}

/// The embedded platform must not outlive the `har serve` that started it, even after a kill -9: a
/// thread of its own notices the re-parenting within a second and sends this process SIGTERM, which
/// `Signals.wait` takes for a clean stop.
enum ParentWatch {
    static func stopWithParent() {
        guard getenv("HAR_INTERNAL_PARENT_PID") != nil else { return }
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { _ in
                guard let text = getenv("HAR_INTERNAL_PARENT_PID"), let parent = pid_t(String(cString: text)) else {
                    return nil
                }
                while getppid() == parent { sleep(1) }
                kill(getpid(), SIGTERM)
                return nil
            }, nil)
        pthread_detach(thread)
    }
}
