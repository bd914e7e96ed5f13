import HTTPServer
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// A local platform listening on a socket, with its own SQLite file: what `har platform` runs and
/// what integration tests start on an ephemeral port (port 0).
public final class LocalPlatformServer: Sendable {
    public let platform: LocalPlatform
    private let server: HTTPServer
    private let store: SQLitePlatformStore

    public init(
        configuration: LocalPlatformConfiguration, databasePath: String, host: String = "127.0.0.1", port: Int = 0,
        threadCount: Int = 4, errorLog: (@Sendable (String) -> Void)? = nil
    ) throws {
        // The server's temporary folder sits inside the data folder, so kept photos are renamed, not copied.
        mkdir(configuration.dataDirectory, 0o700)
        store = try SQLitePlatformStore(path: databasePath)
        platform = LocalPlatform(configuration: configuration, store: store)
        let limits = ServerLimits(
            maxBodyBytes: 1 << 20, maxFileBytes: configuration.photoLimitBytes + (1 << 20), maxFiles: 1)
        server = HTTPServer(
            configuration: ServerConfiguration(
                host: host, port: port, threadCount: threadCount, limits: limits,
                temporaryDirectory: configuration.dataDirectory + "/tmp", securityHeaders: Headers()),
            router: platform.makeRouter(), errorLog: errorLog)
    }

    public func start() throws { try server.start() }

    /// The bound port, after `start`.
    public var port: Int { server.port }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public func stop() {
        server.stop(gracePeriod: 2)
        store.close()
    }
}
