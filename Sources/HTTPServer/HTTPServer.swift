// The server: starts an MHD daemon (internal polling threads with epoll, a thread pool,
// suspend/resume) fed by a listening socket of our own (Listener.swift says why), counts requests in
// flight, and stops gracefully.
import CMicroHTTPD
import Glibc
import Synchronization

/// @unchecked Sendable: its `let`s are immutable after init and every mutable field lives in the
/// `state` Mutex; MHD threads, handler tasks and the caller of `stop` all go through it.
public final class HTTPServer: @unchecked Sendable {
    let configuration: ServerConfiguration
    let router: Router
    let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    let errorLog: @Sendable (String) -> Void
    /// Requests refused before a handler, by reason (RFC 9112 framing, and what MHD refused itself).
    public let refusals: RequestRefusals
    /// The configured security headers whose values are safe to send, checked once here rather than
    /// on every response.
    let securityHeaders: [(name: String, value: String)]
    /// The same, as C strings made once: passing a String to MHD made a C copy of it per response.
    let securityHeaderCStrings: [(name: ContiguousArray<CChar>, value: ContiguousArray<CChar>)]
    /// This server among others in the process, for responses kept per server.
    let instance = serverInstanceCounter.add(1, ordering: .relaxed).newValue
    /// The header deadline and minimum body rate.
    let slowClients: SlowClients
    /// Handlers' 304 answers, kept as MHD responses under their fields.
    let keptNotModified = KeptNotModified()

    private struct State {
        var daemon: DaemonHandle?
        /// From `start` until `stop` closes it.
        var listener: Listener?
        var port = 0
        var stopping = false
        var refusesSuspension = false
        var suspended: [ObjectIdentifier: RequestState] = [:]
        var lastMHDMessage = ""
        /// Memory MHD points into for the daemon's lifetime (PEM text).
        var resources = DaemonMemory()
    }

    /// malloc'ed blocks handed to MHD. @unchecked Sendable: only `start` and `stop` touch them, under
    /// the state lock, and nothing reads through them in Swift.
    /// The MHD daemon. @unchecked Sendable: MHD's daemon API is thread-safe for what we call on it
    /// (info, add a connection, stop), and `stop` makes sure only one caller stops it.
    struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    struct DaemonMemory: @unchecked Sendable {
        var pointers: [UnsafeMutableRawPointer] = []
    }
    private let state = Mutex(State())
    /// Requests between the URI-log callback and the completion notice. An atomic rather than a
    /// field of `state`: every MHD thread changes it twice per request, and under load the shared
    /// lock showed up contended in perf (_MutexHandle._lockSlow).
    private let inFlight = Atomic<Int>(0)

    /// `errorLog` receives MHD's own messages and errors thrown by handlers (failures, for a log's error
    /// level); default: standard error. `refusals` counts the requests refused before a handler.
    public init(
        configuration: ServerConfiguration, router: Router, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil,
        refusals: RequestRefusals = RequestRefusals(), errorLog: (@Sendable (String) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.refusals = refusals
        self.router = router
        self.accessLog = accessLog
        slowClients = SlowClients(limits: configuration.limits)
        securityHeaders = configuration.securityHeaders.fields.filter { Decoding.isSafeHeaderValue($0.value) }
        securityHeaderCStrings = securityHeaders.map { ($0.name.utf8CString, $0.value.utf8CString) }
        self.errorLog =
            errorLog ?? { message in
                var line = "http: " + message + "\n"
                line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            }
    }

    /// The bound port (resolves port 0 after `start`).
    public var port: Int { state.withLock { $0.port } }

    /// Connections shut for missing the header deadline or the minimum body rate.
    public var slowClientsCut: Int { slowClients.cutCount.load(ordering: .relaxed) }

    /// False from the moment `stop` closes the listening socket.
    public var isAcceptingConnections: Bool { state.withLock { $0.listener != nil } }

    /// The listening socket MHD itself holds while running: none (-1), by design (Listener.swift).
    var libraryListeningSocket: Int32? {
        state.withLock { $0.daemon.map { har_mhd_listen_fd($0.pointer) } }
    }

    /// Address text for messages.
    private var address: String {
        configuration.host.contains(":")
            ? "[\(configuration.host)]:\(configuration.port)"
            : "\(configuration.host):\(configuration.port)"
    }

    public func start() throws {
        guard state.withLock({ $0.daemon == nil && !$0.stopping }) else { return }
        let directory = configuration.temporaryDirectory
        guard HTTPServer.makeDirectories(directory) else {
            throw HTTPServerError.cannotCreateTemporaryDirectory(directory)
        }
        var resources: [UnsafeMutableRawPointer] = []
        var started = false
        defer {
            if !started {
                for pointer in resources { free(pointer) }
            }
        }

        guard let (socketAddress, isIPv6) = makeSocketAddress() else {
            throw HTTPServerError.invalidHost(configuration.host)
        }
        let listener: Listener
        do {
            defer { free(socketAddress) }
            listener = try Listener(address: socketAddress, isIPv6: isIPv6)
        } catch {
            throw HTTPServerError.cannotStart(address: address, reason: error.reason)
        }
        defer {
            if !started { listener.close() }
        }

        // No listening socket of MHD's: the Listener's thread hands connections over (MHD_USE_ITC
        // wakes the pool thread that gets each one).
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        let limits = configuration.limits
        let me = Unmanaged.passRetained(self)
        var options: [MHD_OptionItem] = [
            // First, so MHD routes even its option-parsing messages to us.
            har_mhd_option_logger(harMHDLog, me.toOpaque()),
            har_mhd_option_value(MHD_OPTION.THREAD_POOL_SIZE, max(1, configuration.threadCount)),
            har_mhd_option_value(MHD_OPTION.CONNECTION_LIMIT, max(1, limits.maxConnections)),
            har_mhd_option_value(MHD_OPTION.CONNECTION_TIMEOUT, max(0, limits.idleTimeoutSeconds)),
            har_mhd_option_value(MHD_OPTION.CONNECTION_MEMORY_LIMIT, max(4096, limits.connectionMemoryBytes)),
            // 0, on purpose: at 1, MHD 0.9.75 adds only its own 400 for HTTP/1.1 without Host (the skin
            // checks that and more, and counts it) and closes without any answer on a space in the
            // target (the skin answers 400). Measured; docs/HTTP.md, "libmicrohttpd's strict mode".
            har_mhd_option_value(MHD_OPTION.STRICT_FOR_CLIENT, 0),
            har_mhd_option_uri_log(harURILog, me.toOpaque()),
            har_mhd_option_completed(harRequestCompleted, me.toOpaque()),
        ]
        if slowClients.isEnabled {
            options.append(har_mhd_option_notify_connection(harConnectionNotified, me.toOpaque()))
        }
        if limits.maxConnectionsPerIP > 0 {
            options.append(har_mhd_option_value(MHD_OPTION.PER_IP_CONNECTION_LIMIT, limits.maxConnectionsPerIP))
        }
        if let certificatePath = configuration.tlsCertificatePath, let keyPath = configuration.tlsKeyPath {
            flags |= MHD_USE_TLS.rawValue
            guard let certificate = HTTPServer.readFile(certificatePath) else {
                me.release()
                throw HTTPServerError.cannotReadTLSFile(path: certificatePath)
            }
            resources.append(certificate)
            guard let key = HTTPServer.readFile(keyPath) else {
                me.release()
                throw HTTPServerError.cannotReadTLSFile(path: keyPath)
            }
            resources.append(key)
            options.append(har_mhd_option_pointer(MHD_OPTION.HTTPS_MEM_CERT, certificate))
            options.append(har_mhd_option_pointer(MHD_OPTION.HTTPS_MEM_KEY, key))
            // Without it GnuTLS's defaults apply (TLS 1.0/1.1 and CBC suites among them). Kept with
            // the certificate's copy so it outlives the start, whatever MHD does with it.
            guard let priorities = strdup(TLSProfile.gnuTLSPriorities) else {
                me.release()
                throw HTTPServerError.cannotStart(address: address, reason: "out of memory")
            }
            resources.append(UnsafeMutableRawPointer(priorities))
            options.append(har_mhd_option_pointer(MHD_OPTION.HTTPS_PRIORITIES, priorities))
        }
        options.append(har_mhd_option_end())

        let daemon = options.withUnsafeMutableBufferPointer { items in
            har_mhd_start_daemon(flags, 0, harAccessHandler, me.toOpaque(), items.baseAddress)
        }
        guard let daemon else {
            me.release()
            let reason = state.withLock { $0.lastMHDMessage }
            throw HTTPServerError.cannotStart(
                address: address, reason: reason.isEmpty ? "microhttpd refused to start" : reason)
        }
        guard listener.start(daemon: daemon, connectionLimit: limits.maxConnections, log: errorLog) else {
            MHD_stop_daemon(daemon)
            me.release()
            throw HTTPServerError.cannotStart(address: address, reason: "no thread to accept connections")
        }
        started = true
        slowClients.start()
        let handle = DaemonHandle(pointer: daemon)
        let memory = DaemonMemory(pointers: resources)
        state.withLock {
            $0.daemon = handle
            $0.listener = listener
            $0.port = listener.port
            $0.resources = memory
        }
    }

    /// Stops accepting (our listening socket closes at once, so new connections are refused), lets
    /// requests in flight finish for up to `gracePeriod` seconds, answers any still-suspended request
    /// 503, then stops the daemon. Safe to call more than once.
    public func stop(gracePeriod: Double = 10) {
        let running = state.withLock { state -> (DaemonHandle, Listener?)? in
            guard !state.stopping, let daemon = state.daemon else { return nil }
            state.stopping = true
            return (daemon, state.listener)
        }
        guard let (handle, listener) = running else { return }
        let daemon = handle.pointer
        // No MHD_quiesce_daemon: in 0.9.75 it races the epoll pool threads and can abort (Listener.swift).
        listener?.close()
        state.withLock { $0.listener = nil }

        waitForRequests(until: monotonicSeconds() + max(0, gracePeriod))
        // From here no request may suspend (it could outlive the daemon): late ones are answered 503.
        let leftovers = state.withLock { state in
            state.refusesSuspension = true
            return Array(state.suspended.values)
        }
        finishWith503(leftovers)
        // Resumed connections need a moment on their poll thread before the daemon may stop.
        waitForRequests(until: monotonicSeconds() + 2)
        // A request tracked just before the refusal began may have suspended only after the pass above.
        finishWith503(state.withLock { Array($0.suspended.values) })
        waitForRequests(until: monotonicSeconds() + 1)

        slowClients.stop()
        MHD_stop_daemon(daemon)
        let resources = state.withLock { state -> DaemonMemory in
            state.daemon = nil
            defer { state.resources = DaemonMemory() }
            return state.resources
        }
        for pointer in resources.pointers { free(pointer) }
        Unmanaged.passUnretained(self).release()  // the reference `start` gave the daemon
    }

    private func finishWith503(_ requests: [RequestState]) {
        for request in requests where request.finish(with: router.errorPage(503, request.summary)) {
            untrackSuspended(request)
        }
    }

    private func waitForRequests(until deadline: Double) {
        while inFlight.load(ordering: .acquiring) > 0 && monotonicSeconds() < deadline {
            usleep(10_000)
        }
    }

    // MARK: Bookkeeping called from the MHD callbacks

    func requestStarted() { inFlight.add(1, ordering: .relaxed) }

    func requestCompleted(_ request: RequestState) {
        inFlight.subtract(1, ordering: .releasing)
        request.body?.removeAll()
        accessLog?(
            AccessLogEntry(
                time: request.wallTime, method: request.method,
                path: request.path.isEmpty ? request.rawPath : request.path,
                status: request.responseQueued ? request.status : 0, bytes: request.bytes,
                durationSeconds: monotonicSeconds() - request.startedAt, remoteAddress: request.remoteAddress))
    }

    /// False once `stop` is past its grace period: the caller must answer without suspending.
    func trackSuspended(_ request: RequestState) -> Bool {
        state.withLock { state in
            guard !state.refusesSuspension else { return false }
            state.suspended[ObjectIdentifier(request)] = request
            return true
        }
    }

    func untrackSuspended(_ request: RequestState) {
        _ = state.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(request)) }
    }

    func logMHD(_ message: String) {
        var text = Substring(message)
        while text.last == "\n" { text = text.dropLast() }
        state.withLock { $0.lastMHDMessage = String(text) }
        // MHD answers some malformed requests itself and says so here, with the status it sent.
        if text.hasPrefix("Error processing request"), let refusal = RequestRefusal.fromLibraryMessage(text) {
            refusals.record(refusal)
        }
        errorLog("microhttpd: " + text)
    }

    func logError(_ message: String) { errorLog(message) }

    // MARK: Setup helpers

    /// A sockaddr_in or sockaddr_in6 for the configured host and port, malloc'ed (the caller frees it).
    private func makeSocketAddress() -> (UnsafeMutableRawPointer, Bool)? {
        guard (0...65535).contains(configuration.port),
            let memory = calloc(1, MemoryLayout<sockaddr_storage>.size)
        else { return nil }
        let port = in_port_t(UInt16(configuration.port).bigEndian)
        let ipv4 = memory.assumingMemoryBound(to: sockaddr_in.self)
        if inet_pton(AF_INET, configuration.host, &ipv4.pointee.sin_addr) == 1 {
            ipv4.pointee.sin_family = sa_family_t(AF_INET)
            ipv4.pointee.sin_port = port
            return (memory, false)
        }
        memset(memory, 0, MemoryLayout<sockaddr_storage>.size)
        let ipv6 = memory.assumingMemoryBound(to: sockaddr_in6.self)
        if inet_pton(AF_INET6, configuration.host, &ipv6.pointee.sin6_addr) == 1 {
            ipv6.pointee.sin6_family = sa_family_t(AF_INET6)
            ipv6.pointee.sin6_port = port
            return (memory, true)
        }
        free(memory)
        return nil
    }

    /// `mkdir -p`, owner-only: uploads wait here before handlers move them.
    private static func makeDirectories(_ path: String) -> Bool {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return false }
        }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A whole (small) file as a NUL-terminated malloc'ed string, for the PEM options.
    private static func readFile(_ path: String) -> UnsafeMutableRawPointer? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        guard !bytes.isEmpty, let memory = calloc(bytes.count + 1, 1) else { return nil }
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress { memory.copyMemory(from: base, byteCount: buffer.count) }
        }
        return memory
    }
}
