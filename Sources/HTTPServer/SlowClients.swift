// Slow clients. MHD's connection timeout is an idle timeout: a client sending one
// byte every few seconds keeps a connection, and a thread's worth of bookkeeping, forever. This adds
// what MHD 0.9.75 lacks: a deadline for the request line and headers, and a minimum average rate for
// a body. A watchdog looks at every connection twice a second and shuts down the socket of any past
// its deadline; MHD then sees the end of the stream and closes the connection itself, as it does for
// any client that leaves.
import CMicroHTTPD
import Dispatch
import Glibc
import Synchronization

/// @unchecked Sendable: `connections` is behind its Mutex; `timer` is set by `start` and cleared by
/// `stop`, which the server calls once each, in that order, from the thread that starts and stops it.
final class SlowClients: @unchecked Sendable {
    /// Where a connection stands.
    enum Phase: Sendable {
        /// Waiting for the first request's line and headers, since the connection opened.
        case firstHeaders(since: Double)
        /// Waiting for the next request on a kept-alive connection, since the last one ended.
        case nextHeaders(since: Double)
        /// Reading a body: when it began and how many bytes came.
        case body(since: Double, bytes: Int)
        /// A handler has the request (its own deadline applies).
        case handling
    }

    /// One connection's descriptor and phase. Each connection has its own, kept in MHD's socket
    /// context, so that setting a phase (twice per request) locks only this connection's state, which
    /// nothing but its own MHD thread and the watchdog touches. One table for every connection, hashed
    /// and locked by both MHD threads on each request, was ~1,600 instructions of every request
    /// (callgrind); the table is now touched only when a connection opens or closes.
    final class Watch: Sendable {
        let fd: Int32
        let state: Mutex<(phase: Phase, cut: Bool)>

        init(fd: Int32, phase: Phase) {
            self.fd = fd
            state = Mutex((phase, false))
        }
    }

    let headerTimeout: Double
    let idleTimeout: Double
    let minimumBodyRate: Double
    /// Every open connection's watch, for the watchdog, by the connection's address.
    private let connections = Mutex<[Int: Watch]>([:])
    private var timer: DispatchSourceTimer?
    /// Connections cut for being too slow, for /metrics and tests.
    let cutCount = Atomic<Int>(0)

    init(limits: ServerLimits) {
        headerTimeout = limits.headerTimeoutSeconds
        idleTimeout = Double(limits.idleTimeoutSeconds)
        minimumBodyRate = Double(limits.minimumBodyBytesPerSecond)
    }

    var isEnabled: Bool { headerTimeout > 0 || minimumBodyRate > 0 }

    private static func key(_ connection: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(connection)) }

    /// A new connection: its watch, kept in the table and (retained) in its socket context.
    func opened(_ connection: OpaquePointer, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        let watch = Watch(fd: har_mhd_connection_fd(connection), phase: .firstHeaders(since: monotonicSeconds()))
        connections.withLock { $0[Self.key(connection)] = watch }
        socketContext.pointee = Unmanaged.passRetained(watch).toOpaque()
    }

    /// Called before MHD closes the socket: the watchdog never touches a descriptor after this.
    func closed(_ connection: OpaquePointer, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        _ = connections.withLock { $0.removeValue(forKey: Self.key(connection)) }
        if let kept = socketContext.pointee {
            socketContext.pointee = nil
            Unmanaged<Watch>.fromOpaque(kept).release()
        }
    }

    /// The connection's watch (nil before it was opened here, or after it closed).
    private func watch(_ connection: OpaquePointer) -> Watch? {
        har_mhd_socket_context(connection).map { Unmanaged<Watch>.fromOpaque($0).takeUnretainedValue() }
    }

    func set(_ connection: OpaquePointer, _ phase: Phase) {
        watch(connection)?.state.withLock { $0.phase = phase }
    }

    func received(_ connection: OpaquePointer, _ count: Int) {
        watch(connection)?.state.withLock { state in
            if case .body(let since, let bytes) = state.phase {
                state.phase = .body(since: since, bytes: bytes + count)
            }
        }
    }

    func start() {
        guard isEnabled else { return }
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        source.schedule(deadline: .now() + 0.5, repeating: 0.5)
        source.setEventHandler { [weak self] in self?.sweep(now: monotonicSeconds()) }
        source.resume()
        timer = source
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Shuts down every connection past its deadline (under the lock, so `closed` cannot race it).
    func sweep(now: Double) {
        connections.withLock { table in
            for watch in table.values {
                let late = watch.state.withLock { state -> Bool in
                    guard !state.cut, isLate(state.phase, now: now) else { return false }
                    state.cut = true
                    return true
                }
                guard late else { continue }
                if watch.fd >= 0 { _ = shutdown(watch.fd, Int32(SHUT_RDWR)) }
                cutCount.add(1, ordering: .relaxed)
            }
        }
    }

    func isLate(_ phase: Phase, now: Double) -> Bool {
        switch phase {
        case .firstHeaders(let since):
            return headerTimeout > 0 && now - since > headerTimeout
        case .nextHeaders(let since):
            // A kept-alive connection may idle between requests; a request trickled in after it is
            // still bounded: idle timeout plus the header deadline.
            return headerTimeout > 0 && now - since > idleTimeout + headerTimeout
        case .body(let since, let bytes):
            let elapsed = now - since
            let grace = headerTimeout > 0 ? headerTimeout : 10
            return minimumBodyRate > 0 && elapsed > grace && Double(bytes) < minimumBodyRate * elapsed
        case .handling:
            return false
        }
    }
}

/// MHD_OPTION.NOTIFY_CONNECTION: a connection opened or closed.
func harConnectionNotified(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        server.slowClients.opened(connection, socketContext: socketContext)
    } else {
        server.slowClients.closed(connection, socketContext: socketContext)
    }
}
