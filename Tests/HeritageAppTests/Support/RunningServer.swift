import Foundation
import SQLiteStorage
@_exported import TestSupport

@testable import HeritageApp

/// A response as the test client read it (the name from when curl read them).
typealias CurlResponse = HTTPResponse

/// A server under test: its address and its data folder.
protocol ServerUnderTest: AnyObject {
    var baseURL: String { get }
    var dataDir: String { get }
}

/// The application `har serve` builds (`buildApplication`), built and started inside the test process
/// on a free loopback port, with a data folder of its own. The embedded platform is the built `har`
/// started as a child, as in production. Access lines are off (they would go to the test's output).
final class RunningServer: ServerUnderTest, @unchecked Sendable {
    let application: Application
    let dataDir: String
    let port: Int
    private let lock = NSLock()
    private var stopped = false

    /// Builds and starts the application; `environment` holds `HAR_` variables as `har serve` reads them,
    /// `serviceEnvironment` what a service manager sets (`NOTIFY_SOCKET`). `beforeStart` is given the
    /// data folder of the built application before it starts (data a start-up step must find there).
    init(
        environment extra: [String: String] = [:], dataDir: String? = nil, serviceEnvironment: [String: String] = [:],
        beforeStart: (_ dataDir: String) throws -> Void = { _ in }
    ) throws {
        let folder = try dataDir ?? TestPaths.temporaryDirectory()
        var environment = [
            "HAR_PORT": "0", "HAR_DATA_DIR": folder, "HAR_ACCESS_LOG": "false",
            "HAR_TEMPLATES_DIR": TestPaths.packageRoot + "/Templates",
            "HAR_PUBLIC_DIR": TestPaths.packageRoot + "/Public",
            // Not at every test's start (~0.8 s of CPU each): StaticWarmTests turns it on.
            "HAR_STATIC_WARM": "false",
        ]
        environment.merge(extra) { $1 }
        self.dataDir = environment["HAR_DATA_DIR"] ?? folder
        let configuration = try Configuration.load(file: nil, environment: environment)
        application = try buildApplication(
            configuration: configuration, platformExecutable: TestPaths.harExecutable,
            serviceEnvironment: serviceEnvironment)
        do {
            try beforeStart(self.dataDir)
            try application.start()
        } catch {
            application.stop(gracePeriod: 0)
            throw error
        }
        port = application.port
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops as SIGTERM makes `har serve` stop (requests in flight finish), off the concurrency pool.
    func stop() async {
        let application = application
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? await blocking { application.stop(gracePeriod: 10) }
    }

    deinit {
        if !stopped { application.stop(gracePeriod: 2) }
        try? FileManager.default.removeItem(atPath: dataDir)
    }
}

/// A real `har serve` process on a free loopback port, for what needs a process: its exit status,
/// its signals, its standard error and access log, its embedded platform child.
final class ServeProcess: ServerUnderTest, @unchecked Sendable {
    let harProcess: HarProcess
    let dataDir: String
    let port: Int
    var process: Process { harProcess.process }

    init(environment extra: [String: String] = [:], arguments: [String] = [], dataDir: String? = nil) async throws {
        self.dataDir = try dataDir ?? TestPaths.temporaryDirectory()
        var environment = ["HAR_PORT": "0", "HAR_DATA_DIR": self.dataDir, "HAR_ACCESS_LOG": "true"]
        environment.merge(extra) { $1 }
        // The process's output goes beside the data folder, not into it: a test may look at what the
        // server made there, or start it on a folder that does not exist yet.
        harProcess = try HarProcess(
            ["serve"] + arguments, environment: environment, folder: try TestPaths.temporaryDirectory())
        port = try await harProcess.waitForPort()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM and waits; returns the exit status and everything printed on standard error.
    func stop() async -> (status: Int32, stderr: String) {
        await harProcess.terminate()
        return (process.terminationStatus, harProcess.errors)
    }

    /// Standard output so far (the access log).
    func accessLog() -> String { harProcess.output }

    deinit { try? FileManager.default.removeItem(atPath: dataDir) }
}

/// One request without cookies: a fresh test client for `http://` (curl-style options, see
/// `CurlArguments`); the curl program for `https://` or `-k`, which the test client does not speak.
func curl(_ url: String, _ extra: [String] = []) async throws -> CurlResponse {
    if url.hasPrefix("https://") || extra.contains("-k") { return try await curlProcess(url, extra) }
    let client = try HTTPClient(baseURL: url)
    let path = url.dropFirst("http://".count).drop { $0 != "/" }
    return try await client.curl(path.isEmpty ? "/" : String(path), extra)
}

/// Runs SQL on a server's database in this process (the server keeps running: WAL, busy timeout);
/// answers as the sqlite3 shell prints: rows on lines, columns between `|`.
@discardableResult
func sqlite(_ dataDir: String, _ sql: String) throws -> String {
    let database = try Database(path: dataDir + "/har.sqlite", create: false)
    defer { database.close() }
    let rows = try database.query(sql)
    return try rows.map { row in
        try (0..<row.count).map { index -> String in
            switch try row.value(at: index) {
            case .null: ""
            case .integer(let value): String(value)
            case .real(let value): String(value)
            case .text(let value): value
            case .blob(let value): String(decoding: value, as: UTF8.self)
            }
        }.joined(separator: "|")
    }.joined(separator: "\n")
}

/// Inserts a report as Submit would, for the user with that e-mail; returns its local id. The name has
/// markup by default, so that a page showing it must escape it.
func seedReport(_ server: RunningServer, email: String, state: String, name: String = "Kept <b>here</b>") throws
    -> String
{
    let localID = UUID().uuidString.lowercased()
    try sqlite(
        server.dataDir,
        """
        INSERT INTO reports (user_id, local_id, state, name, creation_time, updated_at)
        SELECT id, '\(localID)', '\(state)', '\(name)', 1767225600, 1767225600 FROM users WHERE email = '\(email)'
        """)
    return localID
}
