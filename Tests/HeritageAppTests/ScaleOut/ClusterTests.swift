import Foundation
import PostgresStorage
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// Several `har serve` nodes on one PostgreSQL database, as processes, behind nginx.
@Suite(
    .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)),
    .enabled(if: Nginx.isInstalled, Comment(rawValue: Nginx.skipMessage)))
struct ClusterTests {
    static let nodes = 3
    static let reports = 30
    /// Filed before the pause, so that the paused node surely holds reports mid-transfer.
    static let lateReports = 8
    static let photos = 3
    /// Short enough for the test, longer than `platform_timeout` + 1 (3 s).
    static let leaseSeconds = 5.0

    /// The cluster test: `har platform` with faults (30% 5xx, 10% dropped connections, latency)
    /// and ignoring Idempotency-Keys, so that a double send would show; three nodes sharing the
    /// database and the photo folder behind nginx (`least_conn`); reports filed through nginx by the
    /// browser-level client; three times `kill -9` of the node holding the most leases mid-transfer
    /// (restarted once its leases lapsed), then more reports and once `kill -STOP` past its lease then `-CONT`. Then every
    /// report is on the platform exactly once with every photo once, and reports were taken over
    /// mid-transfer.
    @Test func threeNodesBehindNginxDeliverExactlyOnceThroughKillsAndAPause() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(
            folder: folder, faults: "fail5xx=0.3,drop=0.1,latency_ms=600,seed=13,ignore_idempotency=1")
        let database = try PostgresCluster.shared().makeDatabase()
        let ports = try (0..<Self.nodes).map { _ in try freeLoopbackPort() }
        let nginx = try Nginx(folder: folder + "/nginx", upstreams: ports)
        defer { nginx.stop() }
        var cluster = Cluster(
            folder: folder, ports: ports,
            environment: [
                "HAR_DATABASE_URL": database, "HAR_PLATFORM_URL": platform.baseURL,
                "HAR_CONSUMER_KEY": PlatformProcess.key, "HAR_CONSUMER_SECRET": PlatformProcess.secret,
                "HAR_PHOTO_DIR": folder + "/photos", "HAR_TRUSTED_PROXIES": "127.0.0.1",
                "HAR_WORKER_REPORTS_AT_ONCE": "2", "HAR_WORKER_PHOTOS_AT_ONCE": "2",
                "HAR_RETRY_BASE_SECONDS": "0.2", "HAR_RETRY_CAP_SECONDS": "1",
                "HAR_PLATFORM_TIMEOUT": "3", "HAR_PLATFORM_CONNECT_TIMEOUT": "1",
                "HAR_WORKER_LEASE_SECONDS": String(Self.leaseSeconds),
            ])
        defer { cluster.killAll() }

        // Filed through nginx while the workers are off, so that the kills find the whole queue to drain.
        try await cluster.startAll(workers: false)
        let browser = try WebReporter(baseURL: nginx.baseURL, folder: folder)
        try await browser.signIn(email: "cluster@example.org")
        var captured: [CapturedReport] = []
        func file(_ count: Int) async throws {
            for _ in 0..<count {
                let index = captured.count
                let name = "Chapel cluster \(index + 1) \(UUID().uuidString.prefix(8).lowercased())"
                let (localID, hashes) = try await browser.submitReport(
                    name: name, photos: Self.photos, latitude: 51.5, longitude: -0.12 - Double(index) / 1000)
                captured.append(CapturedReport(id: 0, localID: localID, placeName: name, photoHashes: hashes))
            }
        }
        try await file(Self.reports)
        let watch = try PostgresConnection(database)
        #expect(try watch.scalar("SELECT count(*) FROM reports WHERE state = 'queued'").int == Int64(Self.reports))

        await cluster.stopAll()
        try await cluster.startAll(workers: true)

        // Three times: kill -9 the node holding the most leases on reports mid-transfer; its leases
        // lapse and the others take its reports over; then it comes back.
        for _ in 0..<3 {
            let node = try await Self.busiestNode(watch)
            await cluster.killHard(node)
            try await Task.sleep(for: .seconds(Self.leaseSeconds + 1.5))
            try await cluster.start(node, workers: true)
        }

        // Once: more reports filed (through nginx, to the nodes at work), then kill -STOP the busiest
        // node past its lease, then -CONT. Its leases are taken over
        // meanwhile, and what it does after waking is fenced: it writes nothing and sends nothing.
        try await file(Self.lateReports)
        let paused = try await Self.busiestNode(watch)
        let held = try Self.leases(of: paused, watch)
        cluster.signal(paused, SIGSTOP)
        try await waitUntil("the paused node's reports are taken over", timeout: 60) {
            try held.allSatisfy { lease in
                try watch.scalar(
                    "SELECT count(*) FROM reports WHERE id = ? AND (lease_epoch > ? OR state = 'stored')",
                    .integer(lease.id), .integer(lease.epoch)
                ).int == 1
            }
        }
        try await Task.sleep(for: .seconds(1))
        cluster.signal(paused, SIGCONT)

        try await waitUntil("every report is stored", timeout: 150) {
            try watch.scalar("SELECT count(*) FROM reports WHERE state = 'stored'").int == Int64(captured.count)
        }
        #expect(
            try watch.scalar("SELECT count(*) FROM photos WHERE state = 'stored'").int
                == Int64(captured.count * Self.photos))
        await cluster.stopAll()
        let logs = cluster.logs
        let takeovers = logs.components(separatedBy: "mid-transfer (epoch").count - 1
        #expect(takeovers >= 1, "at least one report taken over mid-transfer")
        try checkPlatformHolds(captured, platformDatabase: platform.databasePath)
        watch.close()
        await platform.stop()
    }

    /// The node whose leases cover the most reports mid-transfer (creating, created, uploading), once
    /// there is one.
    static func busiestNode(_ db: PostgresConnection) async throws -> Int {
        var busiest: Int?
        try await waitUntil("a node holds leases on reports mid-transfer", timeout: 60, interval: 0.05) {
            let row = try db.query(
                """
                SELECT lease_holder, count(*) AS held FROM reports
                WHERE lease_until > ? AND state IN ('creating', 'created', 'uploading')
                GROUP BY lease_holder ORDER BY held DESC LIMIT 1
                """, .real(Date().timeIntervalSince1970)
            ).first
            busiest = try row?.string("lease_holder").flatMap { Int($0.dropFirst("cluster-node-".count)) }
            return busiest != nil
        }
        return busiest ?? 0
    }

    static func leases(of node: Int, _ db: PostgresConnection) throws -> [(id: Int64, epoch: Int64)] {
        try db.query(
            "SELECT id, lease_epoch FROM reports WHERE lease_holder = ? AND lease_until > ?",
            .text("cluster-node-\(node)"), .real(Date().timeIntervalSince1970)
        ).map { (try $0.int("id") ?? 0, try $0.int("lease_epoch") ?? 0) }
    }
}

/// The test's `har serve` nodes, each a real process on a port of its own, restartable on it.
struct Cluster {
    let folder: String
    let ports: [Int]
    let environment: [String: String]
    private var running: [Int: HarProcess] = [:]
    private var finished: [HarProcess] = []

    init(folder: String, ports: [Int], environment: [String: String]) {
        self.folder = folder
        self.ports = ports
        self.environment = environment
    }

    mutating func start(_ node: Int, workers: Bool) async throws {
        var environment = environment
        environment["HAR_PORT"] = String(ports[node])
        environment["HAR_NODE_ID"] = "cluster-node-\(node)"
        environment["HAR_DATA_DIR"] = folder + "/node-\(node)"
        environment["HAR_WORKER_ENABLED"] = workers ? "true" : "false"
        let process = try HarProcess(["serve"], environment: environment, folder: folder)
        _ = try await process.waitForPort()
        running[node] = process
    }

    mutating func startAll(workers: Bool) async throws {
        for node in ports.indices { try await start(node, workers: workers) }
    }

    mutating func killHard(_ node: Int) async {
        guard let process = running.removeValue(forKey: node) else { return }
        await process.killHard()
        finished.append(process)
    }

    func signal(_ node: Int, _ signal: Int32) {
        if let process = running[node], process.process.isRunning { kill(process.process.processIdentifier, signal) }
    }

    mutating func stopAll() async {
        for node in running.keys.sorted() {
            guard let process = running.removeValue(forKey: node) else { continue }
            await process.terminate()
            finished.append(process)
        }
    }

    /// At the end, whatever still runs (a failed expectation on the way).
    mutating func killAll() {
        for (_, process) in running where process.process.isRunning {
            kill(process.process.processIdentifier, SIGCONT)
            kill(process.process.processIdentifier, SIGKILL)
            process.process.waitUntilExit()
        }
        running = [:]
    }

    /// Every node's log so far, of every run.
    var logs: String { (finished + running.values).map(\.errors).joined(separator: "\n") }
}

/// nginx in front of the nodes (`least_conn`), one process without a master, in a folder of its own,
/// stopped by its pid.
final class Nginx: @unchecked Sendable {
    static let executable = "/usr/sbin/nginx"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    static let skipMessage = "nginx is not installed (scripts/setup installs nginx-light): cluster test skipped"

    let process = Process()
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(folder: String, upstreams: [Int]) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let servers = upstreams.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n")
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                client_max_body_size 50m;
                upstream har {
                    least_conn;
            \(servers)
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://har;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $remote_addr;
                    }
                }
            }
            """
        let path = folder + "/nginx.conf"
        try configuration.write(toFile: path, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-p", folder, "-c", path, "-e", folder + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let port = port
        var ready = false
        for _ in 0..<500 where !ready {
            ready = canConnect(port: port)
            if !ready { usleep(10_000) }
        }
        guard ready else { throw TestFailure("nginx did not start: see \(folder)/error.log") }
    }

    /// SIGKILL: a balancer has nothing to save, and nginx without a master (as a child of this
    /// process) may not act on SIGTERM.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// Whether something listens on this loopback port.
func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A loopback port free now (bound, read, released), for a process that must listen on a known port.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw TestFailure("bind") }
    return Int(UInt16(bigEndian: address.sin_port))
}
