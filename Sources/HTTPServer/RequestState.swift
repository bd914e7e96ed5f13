// Everything the server knows about one request between its request line and MHD's completion
// notice. Created in the URI-log callback, kept in MHD's `*con_cls` (passRetained once) and released
// once in the NOTIFY_COMPLETED callback.
import CMicroHTTPD
import Glibc
import Synchronization

/// MHD connection pointer carried to the task that resumes it. MHD allows MHD_resume_connection from
/// any thread (the daemon uses MHD_USE_ITC), and the connection outlives its suspension, so handing
/// the pointer across threads is sound even though OpaquePointer is not Sendable.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Per-request state. @unchecked Sendable because of its two halves: the plain stored properties are
/// touched only by the MHD thread that owns the connection (MHD calls a connection's callbacks on one
/// thread, before and after a suspension alike); the fields shared with the handler task and the
/// deadline task live in `completion`, behind a Mutex.
final class RequestState: @unchecked Sendable {
    let rawURI: [UInt8]
    let startedAt: Double = monotonicSeconds()
    let wallTime: Double = wallClockSeconds()

    var headersSeen = false
    var method = ""
    /// The decoded path when valid, for routing and the access log.
    var path = ""
    var rawPath = ""
    var query: Substring = ""
    var remoteAddress = ""
    var peerAddress = ""
    var headers = Headers()
    var route: Router.Route?
    var parameters = PathParameters()
    /// Answer with this error page (and extra headers, like Allow) instead of calling a handler.
    var failure: Int?
    var failureHeaders = Headers()
    var body: BodyReader?
    /// Body bytes dropped after an early refusal.
    var discardedBytes = 0
    var isSuspended = false

    var responseQueued = false
    var status = 0
    var bytes = 0

    private struct Completion {
        var response: Response?
        var finished = false
        var connection: ConnectionHandle?
        var tasks: [Task<Void, Never>] = []
    }
    private let completion = Mutex(Completion())

    init(rawURI: [UInt8]) { self.rawURI = rawURI }

    /// Before MHD_suspend_connection: from here the first `finish` resumes the connection.
    func prepareSuspension(_ connection: ConnectionHandle) {
        completion.withLock { $0.connection = connection }
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelNow = completion.withLock { state -> Bool in
            if state.finished { return true }
            state.tasks.append(task)
            return false
        }
        if cancelNow { task.cancel() }
    }

    /// Stores the answer and resumes the connection, once; later answers (a handler past its deadline,
    /// a deadline after the handler) are dropped. Returns whether this call won.
    @discardableResult
    func finish(with response: Response) -> Bool {
        let won = completion.withLock { state -> (ConnectionHandle, [Task<Void, Never>])? in
            guard !state.finished, let connection = state.connection else { return nil }
            state.finished = true
            state.response = response
            let tasks = state.tasks
            state.tasks = []
            return (connection, tasks)
        }
        guard let (connection, tasks) = won else { return false }
        for task in tasks { task.cancel() }
        MHD_resume_connection(connection.pointer)
        return true
    }

    /// The stored answer after a resumption.
    func takeResponse() -> Response? {
        completion.withLock { state in
            defer { state.response = nil }
            return state.response
        }
    }

    /// What error pages and the access log see of this request.
    var summary: Request {
        // Error pages answered before a handler ran (404, 405, 413) still speak the visitor's language,
        // which may be chosen by cookie.
        Request(
            method: method, path: path.isEmpty ? "/" : path, rawPath: rawPath, headers: headers,
            remoteAddress: remoteAddress, peerAddress: peerAddress)
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func wallClockSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
