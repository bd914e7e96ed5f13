import HTTPServer
import PlatformClient

/// What a screen's request is let in as: answered already (a kiosk's tablet, signed out, a CSRF refusal),
/// or admitted with its context.
enum WebAdmission {
    case answered(Response)
    case admitted(WebContext)
}

/// Handler wrappers: every screen's route goes through one of them, so sign-in checks (LOG-01), CSRF
/// checks on state-changing requests and the end of a platform session are handled in one place.
extension Web {
    typealias PageHandler = @Sendable (Request, WebContext) throws -> Response
    typealias AsyncPageHandler = @Sendable (Request, WebContext) async throws -> Response

    /// Methods that change state: their requests must carry the CSRF token.
    static func changesState(_ method: String) -> Bool { !["GET", "HEAD", "OPTIONS"].contains(method.uppercased()) }

    /// Wraps an inline handler (no waiting on the network: SQLite and templates only).
    func authenticated(_ access: Access, csrfProtected: Bool, _ handler: @escaping PageHandler) -> InlineHandler {
        { request in
            do {
                switch try self.admit(request, access: access, csrfProtected: csrfProtected) {
                case .answered(let response): return response
                case .admitted(let context):
                    do {
                        return try handler(request, context)
                    } catch is SignedOut {
                        return self.signedOutAnswer(access: access, context: context)
                    }
                }
            } catch let error as StoreError where error.kind == .unavailable {
                return self.storeFailureAnswer(request, access: access, error: error)
            }
        }
    }

    /// Wraps an async handler: for anything that calls the platform (the connection is suspended, no
    /// server thread waits).
    func authenticated(_ access: Access, csrfProtected: Bool, _ handler: @escaping AsyncPageHandler) -> AsyncHandler {
        { request in
            do {
                switch try self.admit(request, access: access, csrfProtected: csrfProtected) {
                case .answered(let response): return response
                case .admitted(let context):
                    do {
                        return try await handler(request, context)
                    } catch is SignedOut {
                        return self.signedOutAnswer(access: access, context: context)
                    }
                }
            } catch let error as StoreError where error.kind == .unavailable {
                return self.storeFailureAnswer(request, access: access, error: error)
            }
        }
    }

    /// The checks every screen's route makes before its handler, sync or async alike (as `Kiosks.admit`
    /// for a tablet's, `Review.admit` for a coordinator's): no live kiosk credential (KIO-02), signed in
    /// unless `access` is `.anyone` (LOG-01), the CSRF token when `csrfProtected`.
    func admit(_ request: Request, access: Access, csrfProtected: Bool) throws -> WebAdmission {
        var context = try context(for: request)
        if let refusal = refusal(request, &context, access: access, csrfProtected: csrfProtected) {
            return .answered(refusal)
        }
        return .admitted(context)
    }

    /// The database is down (PostgreSQL stopped, a connection refused) or its disk is full: a page or
    /// JSON that says so in the visitor's language, 503 with a `Retry-After` (507 for a full disk),
    /// rather than a bare 500. The session cannot be read then, so the answer is the signed-out
    /// visitor's; the error goes to the log.
    func storeFailureAnswer(_ request: Request, access: Access, error: StoreError) -> Response {
        log.error("store error on \(request.method) \(request.path): \(error)")
        let context = baseContext(for: request)
        let (status, key) = error.isDiskFull ? (507, "errors.storeFull") : (503, "errors.storeDown")
        var response =
            access == .api || context.wantsJSON
            ? jsonError(
                error.isDiskFull ? "no_room" : "store_down", context.messages[key], status: status, context: context)
            : errorPage(status: status, titleKey: key + "Title", messageKey: key, context: context)
        if status == 503 { response.headers.add("Retry-After", "5") }
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// Sign-in required but missing, or a CSRF token missing or wrong: the answer; else nil.
    private func refusal(_ request: Request, _ context: inout WebContext, access: Access, csrfProtected: Bool)
        -> Response?
    {
        // A kiosk's tablet reaches its own screens only (KIO-02).
        if let refusal = kioskRefusal(request, &context) { return refusal }
        if access != .anyone && context.user == nil {
            // A session that just ended (idle, lifetime) says so; no session at all is a plain sign-in.
            return signedOutAnswer(access: access, context: context, notice: context.sessionEnded ? "expired" : nil)
        }
        if csrfProtected && !csrfIsValid(request, context) {
            log.security(
                "csrf.refused", ["client": request.remoteAddress, "method": request.method, "path": request.path])
            if access == .api || context.wantsJSON {
                return jsonError("csrf", context.messages["errors.csrf"], status: 403, context: context)
            }
            return errorPage(status: 403, titleKey: "errors.csrfTitle", messageKey: "errors.csrf", context: context)
        }
        return nil
    }

    /// Pages go to /signin; fetch calls get 401 JSON naming where to go. `notice` is a message key of
    /// `signin.notice` shown there (the platform session expired, say). The session cookie is cleared.
    func signedOutAnswer(access: Access, context: WebContext, notice: String? = "expired") -> Response {
        let location = "/signin" + (notice.map { "?notice=\($0)" } ?? "")
        var context = context
        if context.session != nil || notice != nil { context.cookies.append(expiredCookie(sessionCookieName)) }
        if access == .api || context.wantsJSON {
            let message = notice.map { context.messages["signin.notice.\($0)"] } ?? context.messages["errors.signedOut"]
            return jsonError("signed_out", message, status: 401, context: context, redirect: location)
        }
        return redirect(location, context: context)
    }
}

extension Web {
    /// A screen's route takes a small body and no file unless it declares more: a
    /// form or a JSON call is a few KB; only the photo upload declares a photo's size and one file.
    static let defaultBodyBytes = 65_536

    static func declared(_ options: RouteOptions) -> RouteOptions {
        var options = options
        if options.maxBodyBytes == nil { options.maxBodyBytes = defaultBodyBytes }
        if options.maxFiles == nil { options.maxFiles = 0 }
        return options
    }

    /// `declared`, plus a session check on the head of a route that takes a large body and says
    /// nothing itself about who may send one.
    static func headGated(_ options: RouteOptions, _ web: Web, _ access: Access) -> RouteOptions {
        var options = declared(options)
        if access != .anyone, options.beforeBody == nil, takesLargeBody(options) {
            options.beforeBody = { request in web.signedOutHeadRefusal(request, access: access) }
        }
        return options
    }

    /// True when a route takes more body than any route takes before authentication: such a body is
    /// read only for someone already signed in (`beforeBody`), never for anyone who asks.
    static func takesLargeBody(_ options: RouteOptions) -> Bool {
        (options.maxBodyBytes ?? defaultBodyBytes) > defaultBodyBytes
    }

    /// The answer to the head of a large body with no live session (a redirect to /signin, or 401 for
    /// fetch), or nil to read the body. One indexed read, on the poll thread.
    func signedOutHeadRefusal(_ request: Request, access: Access) -> Response? {
        guard let context = try? context(for: request) else { return nil }  // the handler will say
        guard context.user == nil else { return nil }
        return signedOutAnswer(access: access, context: context, notice: context.sessionEnded ? "expired" : nil)
    }
}

extension RouteGroup where Gate == Web {
    /// A route of the volunteer's screens (or the receipts'): `access` says who may call it; every method
    /// but GET/HEAD is CSRF-checked (`Web.admit`).
    mutating func route(
        _ method: String, _ path: String, access: Access, options: RouteOptions = .init(),
        _ handler: @escaping Web.PageHandler
    ) {
        let wrapped = gate.authenticated(access, csrfProtected: Web.changesState(method), handler)
        addInline(method, path, options: Web.headGated(options, gate, access), wrapped)
    }

    /// The same for an async handler (one that calls the platform).
    mutating func routeAsync(
        _ method: String, _ path: String, access: Access, options: RouteOptions = .init(),
        _ handler: @escaping Web.AsyncPageHandler
    ) {
        let wrapped = gate.authenticated(access, csrfProtected: Web.changesState(method), handler)
        add(method, path, options: Web.headGated(options, gate, access), wrapped)
    }
}
