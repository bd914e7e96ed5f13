import Foundation
import PostgresStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL cluster for the tests of this process: made with `initdb` in a folder under
/// /tmp the first time a test asks for it, listening only on a Unix socket in that folder (no TCP port,
/// no systemd), and stopped by its postmaster's pid when the process exits. As root, the server's
/// programs run as the `postgres` user (`runuser`), since PostgreSQL refuses to run as root.
///
/// Each test takes a database of its own (`makeDatabase()`), so tests never see each other's rows.
/// Durability is off in this cluster (fsync, full-page writes): its data lives as long as the tests.
public final class PostgresCluster: Sendable {
    /// The folder holding the data directory, the socket and the server's log.
    public let folder: String
    public let postmasterPID: Int32
    private let admin: PostgresPool

    /// The server's programs (`initdb`, `pg_ctl`), or nil when PostgreSQL is not installed here.
    public static let binaries: String? = {
        if let configured = ProcessInfo.processInfo.environment["HAR_TEST_PG_BINDIR"] { return configured }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = "/usr/lib/postgresql/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb") { return bin }
        }
        return nil
    }()

    /// Whether PostgreSQL tests can run; when false, `skipMessage` says why.
    public static var isInstalled: Bool { binaries != nil }
    public static let skipMessage =
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): PostgreSQL tests skipped; scripts/setup installs it"

    /// The cluster of this process, started at first use; throws when it could not start.
    public static func shared() throws -> PostgresCluster {
        try started.get()
    }

    private static let started: Result<PostgresCluster, Error> = Result {
        guard let binaries else { throw TestFailure(skipMessage) }
        return try PostgresCluster(binaries: binaries)
    }

    private init(binaries: String) throws {
        folder = try TestPaths.temporaryDirectory(prefix: "har-pg")
        let asRoot = geteuid() == 0
        if asRoot {
            guard let user = getpwnam("postgres") else { throw TestFailure("no postgres user to run the server as") }
            guard chown(folder, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw TestFailure("chown \(folder): errno \(errno)")
            }
        }
        let data = folder + "/data"
        try Self.run(
            binaries + "/initdb",
            ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], asRoot: asRoot)
        let options = [
            "-k", folder, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "full_page_writes=off",
            "-c", "synchronous_commit=off", "-c", "max_connections=300", "-c", "shared_buffers=32MB",
        ].joined(separator: " ")
        try Self.run(
            binaries + "/pg_ctl", ["-D", data, "-l", folder + "/server.log", "-w", "-o", options, "start"],
            asRoot: asRoot)
        let pidFile = (try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)) ?? ""
        guard let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw TestFailure("no postmaster.pid in \(data)")
        }
        postmasterPID = pid
        Self.stopAtExit(pid: pid, folder: folder)
        admin = try PostgresPool(
            Self.connectionString(folder: folder, database: "postgres"), configuration: .init(size: 1))
    }

    /// A libpq key=value string for `database` on this cluster's socket.
    public func connectionString(database: String) -> String {
        Self.connectionString(folder: folder, database: database)
    }

    private static func connectionString(folder: String, database: String) -> String {
        "host=\(folder) dbname=\(database) user=postgres"
    }

    /// A new empty database; returns its connection string.
    public func makeDatabase() throws -> String {
        let name = "har_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try admin.withConnection { try $0.execute("CREATE DATABASE \(name)") }
        return connectionString(database: name)
    }

    /// Runs a server program to completion (posix_spawn and waitpid: `pg_ctl start` leaves the server
    /// running behind it, which Foundation's `Process` can wait on forever), its output in a file.
    public static func run(_ program: String, _ arguments: [String], asRoot: Bool) throws {
        let argv = asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let folder = try TestPaths.temporaryDirectory(prefix: "har-pg-run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/output"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw TestFailure("cannot start \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw TestFailure("\(program) failed (status \(status)): \(text)")
        }
    }

    /// Stops the server when this process exits: SIGQUIT to the postmaster (an immediate shutdown,
    /// fine for data nobody keeps), then the folder goes once the server is gone.
    private static func stopAtExit(pid: Int32, folder: String) {
        ClusterToStop.pid = pid
        ClusterToStop.folder = folder
        atexit {
            guard ClusterToStop.pid > 0 else { return }
            kill(ClusterToStop.pid, SIGQUIT)
            for _ in 0..<200 where kill(ClusterToStop.pid, 0) == 0 { usleep(10_000) }
            try? FileManager.default.removeItem(atPath: ClusterToStop.folder)
        }
    }
}

/// What the exit handler needs, kept where a C function pointer can reach it.
private enum ClusterToStop {
    nonisolated(unsafe) static var pid: Int32 = 0
    nonisolated(unsafe) static var folder = ""
}
