// Slow clients (issue 9, item 2). MHD's connection timeout is an idle timeout: a client sending one
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

    struct Entry: Sendable {
        var fd: Int32
        var phase: Phase
        var cut = false
    }

    let headerTimeout: Double
    let idleTimeout: Double
    let minimumBodyRate: Double
    private let connections = Mutex<[Int: Entry]>([:])
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

    func opened(_ connection: OpaquePointer) {
        let entry = Entry(fd: har_mhd_connection_fd(connection), phase: .firstHeaders(since: monotonicSeconds()))
        connections.withLock { $0[Self.key(connection)] = entry }
    }

    /// Called before MHD closes the socket: the watchdog never touches a descriptor after this.
    func closed(_ connection: OpaquePointer) {
        _ = connections.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    func set(_ connection: OpaquePointer, _ phase: Phase) {
        // One lookup, changed in place; nothing is added for a connection already closed.
        connections.withLock { table in table[Self.key(connection)]?.phase = phase }
    }

    func received(_ connection: OpaquePointer, _ count: Int) {
        connections.withLock { table in
            let key = Self.key(connection)
            if case .body(let since, let bytes) = table[key]?.phase {
                table[key]?.phase = .body(since: since, bytes: bytes + count)
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
            for (key, entry) in table where !entry.cut && isLate(entry.phase, now: now) {
                if entry.fd >= 0 { _ = shutdown(entry.fd, Int32(SHUT_RDWR)) }
                table[key]?.cut = true
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
    guard let cls, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        server.slowClients.opened(connection)
    } else {
        server.slowClients.closed(connection)
    }
}
