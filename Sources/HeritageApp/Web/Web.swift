import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// What every screen needs, given once at start: the stores, the templates and messages, the platform
/// client, and whether cookies must be `Secure` (TLS). See docs/WEB.md for how a screen uses it.
final class Web: Sendable {
    let stores: Stores
    let sessions: WebSessions
    let templates: TemplateLibrary
    let catalog: MessageCatalog
    let platform: PlatformClient
    let log: Log
    /// Served over TLS: cookies get `Secure` and the `__Host-` prefix.
    let secure: Bool
    /// Files of photos live here (reports' photos are removed when a report is cancelled).
    let photosDirectory: String
    /// Longest a page waits on the platform (a little under the server's handler deadline).
    let platformWait: Double
    /// Failed sign-ins slow the next attempts (per address, per e-mail, per both), counted in the store.
    let signInLimiter: SignInLimiter
    /// What the upload worker must hear of at once.
    let worker: WorkerSignals
    /// `?v=<version>` of the public folder's files, appended to asset URLs by templates as
    /// `{{{assetQuery}}}` (hex only: left unescaped): such URLs are cached for a year; empty when there is no version.
    let assetQuery: String
    /// The bound of the list's kept answers (`KeptPages`, `list_kept_bytes`); 0 keeps none.
    let keptListBytes: Int
    /// zlib level of pages sent gzip-compressed (`gzip_level`): the kept answers' compressed parts.
    let gzipLevel: Int32

    init(
        stores: Stores, templates: TemplateLibrary, catalog: MessageCatalog, platform: PlatformClient, log: Log,
        secure: Bool, photosDirectory: String, handlerDeadline: Double = 30, worker: WorkerSignals = WorkerSignals(),
        assetVersion: String = "",
        sessionLimits: SessionLimits = SessionLimits(), keptListBytes: Int = 4 << 20, gzipLevel: Int32 = 4
    ) {
        self.keptListBytes = keptListBytes
        self.gzipLevel = gzipLevel
        self.worker = worker
        self.assetQuery = assetVersion.isEmpty ? "" : "?v=" + assetVersion
        self.platformWait = max(1, min(handlerDeadline - 3, handlerDeadline * 0.9))
        self.stores = stores
        self.sessions = WebSessions(users: stores.users, limits: sessionLimits)
        self.signInLimiter = SignInLimiter(store: stores.signInLimits)
        self.templates = templates
        self.catalog = catalog
        self.platform = platform
        self.log = log
        self.secure = secure
        self.photosDirectory = photosDirectory
    }

    // MARK: - Context

    /// The language and the kind of answer a request wants, with no session: what needs no store.
    func baseContext(for request: Request) -> WebContext {
        let language = Language.negotiate(
            cookie: request.cookie(Self.languageCookieName), acceptLanguage: request.headers["Accept-Language"])
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        let accept = request.headers["Accept"]?.lowercased() ?? ""
        let wantsJSON = contentType.hasPrefix("application/json") || accept.hasPrefix("application/json")
        return WebContext(
            user: nil, session: nil, csrfToken: "", messages: catalog.messages(for: language), path: request.path,
            wantsJSON: wantsJSON)
    }

    /// Reads the session (one indexed read of the store), the language and the CSRF token of a request.
    func context(for request: Request) throws -> WebContext {
        var context = baseContext(for: request)
        let lookup = try request.cookie(sessionCookieName).map { try sessions.lookup(token: $0, now: WallClock.now()) }
        if case .live(let session, let user, let listVersion) = lookup {
            context.user = user
            context.session = session
            context.listVersion = listVersion
            context.csrfToken = session.csrfToken
        } else if case .ended = lookup {
            // Idle too long or past its lifetime: pages that need a sign-in say so (a fresh anonymous
            // CSRF token is made below, as for any signed-out visitor).
            context.sessionEnded = true
        }
        if context.session != nil {
            // Signed in: the session's own CSRF token.
        } else if let anonymous = request.cookie(csrfCookieName), anonymous.utf8.count == 64,
            Hex.decode(anonymous) != nil
        {
            context.csrfToken = anonymous
        } else {
            let token = Crypto.randomHex(bytes: 32)
            context.csrfToken = token
            context.cookies.append(cookie(csrfCookieName, token, maxAge: nil))
            context.csrfTokenIsNew = true
        }
        return context
    }

    /// The token a state-changing request carries matches the one of its session (or anonymous cookie).
    /// Compared in constant time; a request without a cookie-backed token never passes.
    func csrfIsValid(_ request: Request, _ context: WebContext) -> Bool {
        guard !context.csrfTokenIsNew else { return false }  // made for this request: nothing could carry it
        guard let sent = request.headers["X-CSRF-Token"] ?? request.formValue("_csrf") ?? Self.jsonCSRF(request.body)
        else { return false }
        return CSRFMask.matches(sent: sent, token: context.csrfToken)
    }

    /// `{"_csrf": "…"}` in a JSON body, for clients that cannot set headers.
    private static func jsonCSRF(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count < 65_536,
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body)),
            case .string(let token) = object["_csrf"]
        else { return nil }
        return token
    }

    // MARK: - Answers

    /// Renders `template` inside the common layout values: `lang`, `title`, `t` (messages), `csrf`,
    /// `path`, `user`, `settings`, `settingsJSON`, `languages` (the switch), `modules` (the page's ES
    /// modules under Public/js/, by path without `.js`, run in that order after the head's), `header`.
    func render(
        _ template: String, title: String, _ values: [String: MustacheValue] = [:], context: WebContext,
        status: Int = 200, modules: [String] = [], csrf: String? = nil
    ) throws -> Response {
        // Fields, not a Swift dictionary: every row's `{{csrf}}` and `{{t.…}}` is found here, and a
        // compare of short keys is cheaper than hashing them each time.
        var root: MustacheFields = [
            "lang": .string(context.language.rawValue), "title": .string(title), "t": context.messages.tree,
            // Masked afresh for this response (BREACH: the page may go gzip-compressed).
            // `csrf` given: the place a kept page's token goes (`ReportListScreen.csrfPlace`).
            "csrf": .string(csrf ?? CSRFMask.mask(context.csrfToken)), "path": .string(context.path),
            "settings": context.settingsValue, "settingsJSON": .string(context.settingsJSON),
            "modules": .array(modules.map { .string($0) }),
            "assetQuery": .string(assetQuery),
            "languages": .array(
                Language.allCases.map { language in
                    [
                        "code": .string(language.rawValue), "label": .string(language.rawValue.uppercased()),
                        "current": .bool(language == context.language),
                    ]
                }),
        ]
        if let user = context.user {
            root["user"] = [
                "id": .int(Int(user.id)), "email": .string(user.email), "fullname": MustacheValue(user.fullname),
            ]
            root["signedInAs"] = .string(context.messages.format("settings.signedInAs", ["email": user.email]))
            // Whom the page was made for, for the device's outbox (device-sync.js); the app shell, kept
            // for every user of a device, leaves it out.
            root["pageUser"] = .string(String(user.id))
            // The bell of every signed-in screen: one indexed count per page.
            let unread = (try? stores.notifications.unreadCount(userID: user.id)) ?? 0
            root["bell"] = [
                "count": unread > 0 ? .int(unread) : .null,
                "label": .string(context.messages.format("notifications.bell", ["n": String(unread)])),
            ]
        }
        for (key, value) in values { root[key] = value }
        // Bytes straight into the body: a String would be validated and copied back to bytes again
        // (perf: String(decoding:) was 6% of the list page).
        var response = Response(
            status: status, contentType: "text/html; charset=utf-8",
            body: try templates.renderBytes(template, .fields(root)))
        // Pages carry the user's data and a CSRF token: never cached by a shared or back-button cache.
        response.headers.add("Cache-Control", "no-store")
        return context.finish(response)
    }

    /// A JSON answer from an Encodable value.
    func json(_ value: some Encodable, status: Int = 200, context: WebContext) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
        var response = Response.json(bytes, status: status)
        response.headers.add("Cache-Control", "no-store")
        return context.finish(response)
    }

    /// `{"error": code, "message": text}`: the one error shape of every JSON endpoint.
    func jsonError(_ code: String, _ message: String, status: Int, context: WebContext, redirect: String? = nil)
        -> Response
    {
        json(APIError(error: code, message: message, redirect: redirect), status: status, context: context)
    }

    func redirect(_ location: String, context: WebContext) -> Response {
        var response = Response.redirect(to: location)
        response.headers.add("Cache-Control", "no-store")
        return context.finish(response)
    }

    /// The localized error page (CSRF refusals, bad input that cannot be shown on its own page).
    func errorPage(status: Int, titleKey: String, messageKey: String, context: WebContext) -> Response {
        let title = context.messages[titleKey]
        let values: [String: MustacheValue] = [
            "message": .string(context.messages[messageKey]), "status": .string(String(status)),
            "back": .string(context.messages["common.back"]),
        ]
        return (try? render("error", title: title, values, context: context, status: status))
            ?? context.finish(Response.text(context.messages[messageKey], status: status))
    }
}

struct APIError: Encodable {
    var error: String
    var message: String
    var redirect: String?
}
