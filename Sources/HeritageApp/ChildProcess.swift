import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn, its standard output read through a pipe. Used for the
/// embedded local platform; kept small on purpose (no Foundation.Process: it drags in more than we need).
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private let output: Int32

    /// Starts `executable` with `arguments` and exactly `environment`; standard error is inherited.
    init(executable: String, arguments: [String], environment: [String: String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ChildProcessError.cannotStart(executable, errno) }
        // Our end must not leak into the child (dup2 onto its stdout clears the flag for that copy).
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)

        // The child must not inherit our blocked SIGINT/SIGTERM: it has to stop when told.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        Glibc.close(pipeEnds[1])
        guard status == 0 else {
            Glibc.close(pipeEnds[0])
            throw ChildProcessError.cannotStart(executable, status)
        }
        pid = child
        output = pipeEnds[0]
    }

    /// Reads standard output line by line until `matching` returns a value, the child closes its
    /// output, or `timeout` seconds pass.
    func waitForLine<T>(timeout: Double, _ matching: (String) -> T?) -> T? {
        var pending: [UInt8] = []
        let deadline = WallClock.now() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while WallClock.now() < deadline {
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, (deadline - WallClock.now()) * 1000)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = read(output, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if let value = matching(line) { return value }
            }
        }
        return nil
    }

    /// Whether the child has exited (reaping it if so).
    var hasExited: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    /// SIGTERM, then SIGKILL after `gracePeriod` seconds; always reaps the child.
    func stop(gracePeriod: Double = 5) {
        kill(pid, SIGTERM)
        let deadline = WallClock.now() + gracePeriod
        var status: Int32 = 0
        while WallClock.now() < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || reaped < 0 {
                Glibc.close(output)
                return
            }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        Glibc.close(output)
    }
}

enum ChildProcessError: Error, CustomStringConvertible {
    case cannotStart(String, Int32)

    var description: String {
        switch self {
        case .cannotStart(let executable, let code):
            return "cannot start \(executable): \(String(cString: strerror(code)))"
        }
    }
}
