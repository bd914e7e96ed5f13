// The life of one request inside the access handler: route on the headers, read the body within its
// limits, then answer inline or through a suspended connection and a Task.
import CMicroHTTPD
import Glibc

extension HTTPServer {
    /// First call: headers are in, body not yet read. Checks the framing (RequestFraming), routes, checks
    /// Content-Length, prepares the body reader. Queues nothing unless the framing is refused or a body
    /// is coming that we refuse (then the connection closes anyway, and answering now spares the client
    /// sending it).
    func begin(_ state: RequestState, connection: OpaquePointer, method: String, isHTTP10: Bool) -> MHD_Result {
        if slowClients.isEnabled { slowClients.set(connection, .handling) }
        state.method = method
        state.peerAddress = remoteAddress(of: connection)
        state.remoteAddress = state.peerAddress
        let collector = HeaderCollector()
        _ = MHD_get_connection_values_n(
            connection, MHD_ValueKind.HEADER_KIND, harCollectHeader, Unmanaged.passUnretained(collector).toOpaque())
        state.headers = collector.headers
        state.remoteAddress = configuration.trustedProxies.clientAddress(
            peer: state.peerAddress, headers: state.headers)

        var target = state.rawURI
        var refusal = collector.refusal ?? RequestFraming.checkTarget(target)
        if refusal == nil, let origin = RequestFraming.originForm(ofAbsolute: target) { target = origin }
        let uri = target.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(decoding: uri.first ?? [], as: UTF8.self)
        state.rawPath = rawPath
        state.query = uri.count > 1 ? Substring(String(decoding: uri[1], as: UTF8.self)) : ""
        if refusal == nil { refusal = RequestFraming.checkFields(state.headers, isHTTP10: isHTTP10) }
        if refusal == nil && !RequestFraming.isKnownMethod(method) { refusal = .methodNotImplemented }
        if refusal == nil, let allowed = configuration.allowedHosts, !allowed.allows(state.headers["Host"]) {
            refusal = .hostNotAllowed
        }
        if let refusal {
            // Answered at once, before any body: MHD then closes the connection after the answer, as
            // RFC 9112 §6.3 requires when the framing is in doubt (and harmless when it is not).
            refusals.record(refusal)
            return refuse(state, status: refusal.status, connection: connection, now: true)
        }
        let contentLength = state.headers["Content-Length"].flatMap { Int($0) }
        let isChunked = state.headers["Transfer-Encoding"]?.lowercased().contains("chunked") ?? false
        let hasBody = (contentLength ?? 0) > 0 || isChunked

        guard let path = Decoding.path(rawPath) else {
            return refuse(state, status: 400, connection: connection, now: hasBody)
        }
        state.path = path
        switch router.match(method: method, path: path) {
        case .notFound:
            return refuse(state, status: 404, connection: connection, now: hasBody)
        case .methodNotAllowed(let allowed):
            state.failureHeaders.add("Allow", allowed.joined(separator: ", "))
            return refuse(state, status: 405, connection: connection, now: hasBody)
        case .found(let route, let parameters):
            state.route = route
            state.parameters = parameters
        }
        guard hasBody, let route = state.route else { return MHD_Result.YES }
        if let check = route.options.beforeBody, let answer = check(makeRequest(state)) {
            // Refused on its head (no session, no token, no room): answered before any body is read.
            state.failure = answer.status
            _ = queue(answer, for: state, connection: connection)
            return MHD_Result.YES
        }
        let limits = configuration.limits
        let maxBody = route.options.maxBodyBytes ?? limits.maxBodyBytes
        if let contentLength, contentLength > maxBody {
            return refuse(state, status: 413, connection: connection, now: true)
        }
        let reader = BodyReader(
            connection: connection, contentType: state.headers["Content-Type"],
            limits: .init(
                maxBodyBytes: maxBody, maxFileBytes: route.options.maxFileBytes ?? limits.maxFileBytes,
                maxFiles: route.options.maxFiles ?? limits.maxFiles,
                maxInMemoryBytes: limits.maxInMemoryBodyBytes,
                maxFields: route.options.maxFields ?? limits.maxFormFields),
            directory: configuration.temporaryDirectory, spoolRaw: route.options.spoolRawBody)
        state.body = reader
        if let failure = reader.failure { return refuse(state, status: failure, connection: connection, now: true) }
        if slowClients.isEnabled { slowClients.set(connection, .body(since: monotonicSeconds(), bytes: 0)) }
        return MHD_Result.YES
    }

    private func refuse(_ state: RequestState, status: Int, connection: OpaquePointer, now: Bool) -> MHD_Result {
        state.failure = status
        state.body?.removeAll()
        if now { _ = queueError(state, status: status, connection: connection) }
        return MHD_Result.YES
    }

    /// A chunk of body. Once refused, further bytes are dropped unread and the error page goes out when
    /// the body ends: MHD 0.9.75 accepts a response only before the body or after it
    /// (MHD_queue_response checks for HEADERS_PROCESSED or a complete request). A body that grows past
    /// the size limit (chunked; a declared length over it was refused up front) is not waited for: the
    /// connection is closed at once, which stops the upload.
    func receive(_ state: RequestState, connection: OpaquePointer, data: UnsafeRawBufferPointer) -> MHD_Result {
        if slowClients.isEnabled { slowClients.received(connection, data.count) }
        guard let reader = state.body else {
            // Refused before reading (or a body nobody asked for): drop it, bounded like any body.
            state.discardedBytes += data.count
            return state.discardedBytes > configuration.limits.maxBodyBytes ? closeOverLimit(state) : MHD_Result.YES
        }
        if state.failure != nil {
            reader.discard(data.count)
        } else if !reader.feed(data) {
            state.failure = reader.failure ?? 400
        }
        return reader.isOverBodyLimit ? closeOverLimit(state) : MHD_Result.YES
    }

    private func closeOverLimit(_ state: RequestState) -> MHD_Result {
        state.failure = 413
        state.body?.removeAll()
        return MHD_Result.NO
    }

    /// The body is complete (or we were resumed): answer.
    func finish(_ state: RequestState, connection: OpaquePointer) -> MHD_Result {
        // `begin` set .handling; only a body read since then changed the phase.
        if slowClients.isEnabled, state.body != nil { slowClients.set(connection, .handling) }
        if state.responseQueued { return MHD_Result.YES }
        if state.isSuspended {
            let response = state.takeResponse() ?? router.errorPage(503, state.summary)
            return queue(response, for: state, connection: connection)
        }
        if let failure = state.failure { return queueError(state, status: failure, connection: connection) }
        guard let route = state.route else { return queueError(state, status: 404, connection: connection) }
        if let reader = state.body, !reader.finish() {
            state.failure = reader.failure ?? 400
            return queueError(state, status: state.failure ?? 400, connection: connection)
        }
        let request = makeRequest(state)
        switch route.handler {
        case .inline(let handler):
            let response: Response
            do {
                response = try handler(request)
            } catch {
                response = errorResponse(for: error, request: request)
            }
            return queue(response, for: state, connection: connection)
        case .async(let handler):
            guard trackSuspended(state) else {
                return queue(router.errorPage(503, request), for: state, connection: connection)
            }
            suspend(state, connection: connection, request: request, handler: handler)
            return MHD_Result.YES
        }
    }

    private func makeRequest(_ state: RequestState) -> Request {
        let reader = state.body
        return Request(
            method: state.method, path: state.path, rawPath: state.rawPath, query: Decoding.query(state.query),
            headers: state.headers, remoteAddress: state.remoteAddress,
            formFields: reader?.fields.map { ($0.name, String(decoding: $0.value, as: UTF8.self)) } ?? [],
            files: reader?.uploadedFiles ?? [], body: reader?.rawBody ?? [], rawBodyPath: reader?.spool?.path,
            parameters: state.parameters, peerAddress: state.peerAddress)
    }

    /// Parks the connection (no MHD thread waits) and runs the handler in a Task; whichever of the
    /// handler and the deadline finishes first resumes the connection with its answer.
    private func suspend(
        _ state: RequestState, connection: OpaquePointer, request: Request, handler: @escaping AsyncHandler
    ) {
        state.isSuspended = true
        state.prepareSuspension(ConnectionHandle(pointer: connection))
        MHD_suspend_connection(connection)
        let deadline = configuration.limits.handlerDeadlineSeconds
        let errorPage = router.errorPage
        let work = Task {
            let response: Response
            do {
                response = try await handler(request)
            } catch {
                response = self.errorResponse(for: error, request: request)
            }
            if state.finish(with: response) { self.untrackSuspended(state) }
        }
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(max(0, deadline) * 1e9))
            guard !Task.isCancelled else { return }
            if state.finish(with: errorPage(503, request)) {
                self.untrackSuspended(state)
                self.logError("handler for \(request.method) \(request.path) passed its deadline; answered 503")
            }
        }
        state.attach(work)
        state.attach(timer)
    }

    /// The error page for a thrown error; the error itself goes to the error log, never to the client.
    func errorResponse(for error: any Error, request: Request) -> Response {
        if let httpError = error as? HTTPError {
            var response = router.errorPage(httpError.status, request)
            for (name, value) in httpError.headers { response.headers.add(name, value) }
            return response
        }
        logError("handler for \(request.method) \(request.path) failed: \(error)")
        return router.errorPage(500, request)
    }

    func queueError(_ state: RequestState, status: Int, connection: OpaquePointer) -> MHD_Result {
        var response = router.errorPage(status, state.summary)
        for (name, value) in state.failureHeaders { response.headers.add(name, value) }
        return queue(response, for: state, connection: connection)
    }

    func queue(_ response: Response, for state: RequestState, connection: OpaquePointer) -> MHD_Result {
        // MHD closes a connection whose handler says NO, with nothing queued: the lost-answer case.
        if response.closesConnectionWithoutAnswer { return MHD_Result.NO }
        var response = response
        if response.status == 304, let kept = keptNotModified.reusable(for: response) { response.reusable = kept }
        if let reusable = response.reusable, (100...599).contains(response.status),
            let (kept, bytes) = reusable.response(for: instance, make: { makeMHDResponse(response, request: state) })
        {
            let result = MHD_queue_response(connection, UInt32(response.status), kept)
            if result == MHD_Result.YES {
                state.responseQueued = true
                state.status = response.status
                state.bytes = bytes
            }
            return result
        }
        response = compressed(response, acceptEncoding: state.headers["Accept-Encoding"])
        guard let (mhdResponse, status, bytes) = makeMHDResponse(response, request: state) else {
            return MHD_Result.NO  // not even an error page could be built: let MHD drop the connection
        }
        defer { MHD_destroy_response(mhdResponse) }
        let result = MHD_queue_response(connection, UInt32(clamping: status), mhdResponse)
        if result == MHD_Result.YES {
            state.responseQueued = true
            state.status = status
            state.bytes = bytes
        }
        return result
    }
}

/// Throw from a handler to answer with the router's error page for `status` (404 for a report that
/// does not exist, 403, …). Anything else thrown becomes a 500.
public struct HTTPError: Error, Sendable {
    public var status: Int
    public var headers: Headers
    public init(_ status: Int, headers: Headers = Headers()) {
        self.status = status
        self.headers = headers
    }
}
