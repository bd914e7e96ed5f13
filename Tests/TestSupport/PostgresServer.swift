import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of one test's own, which the test may stop and start again (the shared
/// `PostgresCluster` serves every other test of the process and must stay up). Made with `initdb` in a
/// folder under /tmp, listening only on a Unix socket there; stopped by its postmaster's pid when the
/// test lets go of it, and the folder removed.
public final class PostgresServer: @unchecked Sendable {
    public let folder: String
    private let binaries: String
    private let asRoot = geteuid() == 0
    private var data: String { folder + "/data" }

    public init() throws {
        guard let binaries = PostgresCluster.binaries else { throw TestFailure(PostgresCluster.skipMessage) }
        self.binaries = binaries
        folder = try TestPaths.temporaryDirectory(prefix: "har-pg-own")
        if asRoot {
            guard let user = getpwnam("postgres") else { throw TestFailure("no postgres user to run the server as") }
            guard chown(folder, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw TestFailure("chown \(folder): errno \(errno)")
            }
        }
        try PostgresCluster.run(
            binaries + "/initdb",
            ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], asRoot: asRoot)
        try start()
    }

    /// The connection string of the server's `postgres` database.
    public var connectionString: String { "host=\(folder) dbname=postgres user=postgres" }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        let options = [
            "-k", folder, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "full_page_writes=off",
            "-c", "max_connections=100", "-c", "shared_buffers=16MB",
        ].joined(separator: " ")
        try PostgresCluster.run(
            binaries + "/pg_ctl", ["-D", data, "-l", folder + "/server.log", "-w", "-o", options, "start"],
            asRoot: asRoot)
    }

    /// `pg_ctl stop -m immediate`: every server process quits at once, as on a crash (recovery at the
    /// next start).
    public func stopImmediately() throws {
        try PostgresCluster.run(binaries + "/pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], asRoot: asRoot)
    }

    /// The postmaster's pid while it runs.
    public var pid: Int32? {
        let text = (try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first.flatMap { Int32($0) }
    }

    deinit {
        if let pid, kill(pid, 0) == 0 {
            kill(pid, SIGQUIT)
            for _ in 0..<300 where kill(pid, 0) == 0 { usleep(10_000) }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
