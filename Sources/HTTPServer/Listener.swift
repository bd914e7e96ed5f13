// The listening socket, and the thread that accepts on it and hands each connection to MHD.
//
// Why not MHD's own listening socket: to stop accepting before a graceful stop, MHD 0.9.75 offers
// MHD_quiesce_daemon, and in epoll mode with a thread pool quiesce races each pool thread's event loop
// over removing the socket from that thread's epoll set; the loser aborts the whole process ("Failed
// to remove listen FD from epoll set", docs/HTTP.md). So the daemon runs with MHD_USE_NO_LISTEN_SOCKET
// and this thread accepts: MHD_add_connection gives each connection to a pool thread (through that
// thread's ITC), and stopping is closing our socket, after which new connections are refused at once.
// What MHD's accept did and this keeps: non-blocking, close-on-exec sockets (accept4), the client's
// address for the per-address limit and the logs, and at the total connection limit no accept at all,
// so that further connections wait in the kernel's backlog until one closes.
import CMicroHTTPD
import Glibc

/// @unchecked Sendable: the descriptors are immutable after init; `thread` is set by `start` and read by
/// `close`, which the server calls once each, in that order, under its own stop protocol.
final class Listener: @unchecked Sendable {
    let socket: Int32
    /// The bound port (port 0 resolved by the kernel).
    let port: Int
    /// A pipe whose write end `close` writes to: it wakes the accepting thread out of `poll`.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: pthread_t?
    private var daemon: OpaquePointer?
    private var connectionLimit = 0
    private var log: (@Sendable (String) -> Void)?

    enum Failure: Error {
        /// What failed (`bind`, `listen`, …) and errno.
        case system(String, Int32)

        var reason: String {
            switch self {
            case .system(let call, let code): return "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Binds and listens on `address` (a sockaddr_in or sockaddr_in6), as MHD would: SO_REUSEADDR, an
    /// IPv6 socket for IPv6 only, the system's largest backlog.
    init(address: UnsafeRawPointer, isIPv6: Bool) throws(Failure) {
        let family = isIPv6 ? AF_INET6 : AF_INET
        let length = socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let fd = Glibc.socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var pipeEnds: [Int32] = [-1, -1]
        do throws(Failure) {
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if isIPv6 {
                _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            guard Glibc.bind(fd, address.assumingMemoryBound(to: sockaddr.self), length) == 0 else {
                throw Failure.system("bind", errno)
            }
            guard Glibc.listen(fd, SOMAXCONN) == 0 else { throw Failure.system("listen", errno) }
            var bound = sockaddr_storage()
            var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &boundLength) }
            }
            guard named == 0 else { throw Failure.system("getsockname", errno) }
            guard har_pipe2(&pipeEnds, O_CLOEXEC | O_NONBLOCK) == 0 else { throw Failure.system("pipe2", errno) }
            port = Listener.port(of: bound)
        } catch {
            Glibc.close(fd)
            throw error
        }
        socket = fd
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    private static func port(of address: sockaddr_storage) -> Int {
        var copy = address
        return withUnsafePointer(to: &copy) { pointer in
            if address.ss_family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }

    /// Starts accepting for `daemon` (started with MHD_USE_NO_LISTEN_SOCKET and MHD_USE_ITC). False if
    /// no thread could be made.
    func start(daemon: OpaquePointer, connectionLimit: Int, log: @escaping @Sendable (String) -> Void) -> Bool {
        self.daemon = daemon
        self.connectionLimit = max(1, connectionLimit)
        self.log = log
        var made = pthread_t()
        let argument = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&made, nil, listenerThreadMain, argument) == 0 else {
            Unmanaged<Listener>.fromOpaque(argument).release()
            return false
        }
        thread = made
        return true
    }

    /// Stops accepting and closes the socket: from its return, connections are refused. Connections
    /// already handed to MHD are MHD's; those still in the backlog are reset by the kernel.
    func close() {
        if let thread {
            var byte: UInt8 = 1
            while write(wakeWrite, &byte, 1) < 0 && errno == EINTR {}
            pthread_join(thread, nil)
            self.thread = nil
        }
        Glibc.close(socket)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    fileprivate func acceptUntilClosed() {
        guard let daemon else { return }
        var fds = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        var lastResourceComplaint = -Double.infinity
        var pause = false
        while true {
            // At the total limit, accept nothing: the kernel keeps new connections waiting in the
            // backlog. MHD counts a connection once its pool thread has taken it; look again often.
            let atLimit = Int(har_mhd_connection_count(daemon)) >= connectionLimit
            let waiting = atLimit || pause
            pause = false
            fds[0].fd = waiting ? -1 : socket  // poll skips a negative descriptor
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, nfds_t(fds.count), waiting ? (atLimit ? 20 : 50) : -1)
            if ready < 0 {
                // Only `close` ends this thread: a server that silently stopped accepting would be worse.
                if errno != EINTR {
                    complain(about: errno, since: &lastResourceComplaint)
                    pause = true
                }
                continue
            }
            if fds[1].revents != 0 { return }
            guard ready > 0, fds[0].revents != 0 else { continue }
            pause = !acceptWaiting(daemon, complaint: &lastResourceComplaint)
        }
    }

    /// Accepts what waits in the backlog, up to 64 at a time (one `poll` for a burst, and `close`
    /// is never kept waiting long), and hands each to MHD. False when the system is out of
    /// descriptors or memory: the caller waits a little before trying again.
    private func acceptWaiting(_ daemon: OpaquePointer, complaint lastComplaint: inout Double) -> Bool {
        for _ in 0..<64 {
            // Connections may have been handed over since the caller looked (poll can wait for long).
            guard Int(har_mhd_connection_count(daemon)) < connectionLimit else { return true }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    har_accept4(socket, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
                }
            }
            if client < 0 {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK:
                    return true  // the backlog is empty
                case EINTR, ECONNABORTED, EPROTO, EPERM:
                    continue  // that one left before we took it
                default:
                    // Out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): the connection
                    // stays in the backlog.
                    complain(about: code, since: &lastComplaint)
                    return false
                }
            }
            // MHD takes the socket in every case: on refusal (per-address or total limit, no memory)
            // it closes it and says why through the daemon's logger.
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon, client, $0, length)
                }
            }
        }
        return true
    }

    /// Logs a system error of accepting, at most once a second.
    private func complain(about code: Int32, since last: inout Double) {
        let now = monotonicSeconds()
        if now - last >= 1 {
            last = now
            log?("cannot accept a connection: \(String(cString: strerror(code)))")
        }
    }
}

private func listenerThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let listener = Unmanaged<Listener>.fromOpaque(argument).takeRetainedValue()
    listener.acceptUntilClosed()
    return nil
}
