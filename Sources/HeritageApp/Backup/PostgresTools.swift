import Basics
import FoundationEssentials
import PostgresStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `pg_dump` and `pg_restore` (Debian's `postgresql-client`), found on `PATH`, run to completion with
/// the connection's settings in their environment, never on their command line (`ConnectionString.
/// environment`: a password in `argv` shows in `ps`). What they print on standard error comes back in
/// the error when they fail, never the connection string.
struct PostgresTools {
    let environment: [String: String]

    init(databaseURL: String?) throws {
        var variables = ProcessInfo.processInfo.environment
        if let databaseURL {
            for (name, value) in try ConnectionString.environment(databaseURL) { variables[name] = value }
        }
        environment = variables
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `program` with `arguments`; its standard output goes line by line to `line` (without the
    /// newline), or to /dev/null when `line` is nil. Throws when it cannot start or exits non-zero.
    func run(_ program: String, _ arguments: [String], line: ((ArraySlice<UInt8>) throws -> Void)? = nil) throws {
        var errorTemplate = Array("/tmp/har-pg-tool-XXXXXX".utf8CString)
        let errors = mkstemp(&errorTemplate)
        guard errors >= 0 else { throw Failed(description: "cannot run \(program): \(ArchiveWriter.reason())") }
        // Unlinked at once: only the open descriptor is needed, and nothing is left behind.
        errorTemplate.withUnsafeBufferPointer { if let path = $0.baseAddress { unlink(path) } }
        defer { close(errors) }
        var pipeEnds: [Int32] = [-1, -1]
        if line != nil {
            guard pipe(&pipeEnds) == 0 else { throw Failed(description: "cannot run \(program): no pipe") }
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        if line != nil {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, errors, STDERR_FILENO)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, program, &actions, nil, argv, envp)
        if line != nil { close(pipeEnds[1]) }
        guard spawned == 0 else {
            if line != nil { close(pipeEnds[0]) }
            throw Failed(
                description: "cannot run \(program) (\(String(cString: strerror(spawned)))): install Debian's "
                    + "postgresql-client, of the server's major version or newer")
        }
        var consumerError: Error?
        if let line {
            consumerError = Self.readLines(from: pipeEnds[0], into: line)
            close(pipeEnds[0])
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        if let consumerError { throw consumerError }
        guard status == 0 else {
            throw Failed(description: "\(program) failed: " + Self.text(of: errors))
        }
    }

    /// Reads until the end of the output, even after `line` threw (the child must not block on a full pipe).
    private static func readLines(from descriptor: Int32, into line: (ArraySlice<UInt8>) throws -> Void) -> Error? {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var failure: Error?
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            guard failure == nil else { continue }
            pending += buffer[0..<count]
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                do { try line(pending[start..<newline]) } catch {
                    failure = error
                    break
                }
                start = newline + 1
            }
            pending.removeFirst(start)
        }
        if failure == nil, !pending.isEmpty {
            do { try line(pending[...]) } catch { failure = error }
        }
        return failure
    }

    private static func text(of descriptor: Int32) -> String {
        lseek(descriptor, 0, SEEK_SET)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 16_384 {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}

extension PostgresConnection {
    /// The connection of `har backup create` and `har backup restore`: failing to connect is a
    /// `BackupError` that says the database could not be reached, and why.
    static func forBackup(_ databaseURL: String) throws -> PostgresConnection {
        do {
            return try PostgresConnection(databaseURL)
        } catch {
            throw BackupError("cannot reach the PostgreSQL database: \(error)")
        }
    }
}
