// Kiosk: shared tablets at heritage sites (docs/KIOSK.md). A kiosk's tablet holds a device
// credential (a cookie of 256 random bits whose SHA-256 alone the store keeps) that reaches the visitor's
// flow under /kiosk and nothing else: every other screen refuses a request that carries it (KIO-02).
import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// What the kiosks need from the configuration.
struct KioskSettings: Sendable {
    var idleSeconds = 90
    var countdownSeconds = 30
    /// Seconds the receipt stays up before the attract screen returns.
    var receiptSeconds = 20
    /// Seconds the receipt's QR code (its link carries the claim secret) stays up: long enough to scan,
    /// too short for the next visitor to find it there.
    var qrSeconds = 8
    /// Where the kiosk's service worker (`Public/js/kiosk/sw.js`) is read from.
    var publicDir = "Public"
    /// An enrolment link works this long, once.
    static let enrolmentSeconds = 600.0
    /// A receipt's claim secret works this long, once.
    static let receiptSeconds = 30 * 86_400.0

    init() {}

    init(configuration: Configuration) {
        idleSeconds = configuration.kioskIdleSeconds
        countdownSeconds = configuration.kioskCountdownSeconds
        publicDir = configuration.publicDir
    }
}

/// The kiosks' parts, given to their screens.
struct Kiosks: Sendable {
    let web: Web
    let store: any KioskStore
    let drafts: Drafts
    let settings: KioskSettings

    /// The kiosk of the request's credential: live, or nil (none, unknown, revoked: not enrolled).
    func kiosk(of request: Request) throws -> Kiosk? {
        guard let token = request.cookie(web.kioskCookieName), let hash = WebSessions.hash(token: token) else {
            return nil
        }
        guard let kiosk = try store.kiosk(credentialHash: hash), !kiosk.isRevoked else { return nil }
        return kiosk
    }

    /// The page a tablet without a live credential gets: not (or no longer) enrolled. Its
    /// `X-HAR-Kiosk: not-enrolled` tells the kiosk's service worker to remove itself and its shell (a revoked
    /// tablet takes no more reports it could never send; those it holds stay on it, docs/KIOSK.md).
    func notEnrolled(_ context: WebContext) -> Response {
        var response = web.errorPage(
            status: 403, titleKey: "kiosk.notEnrolledTitle", messageKey: "kiosk.notEnrolled", context: context)
        response.headers.add("X-HAR-Kiosk", "not-enrolled")
        return response
    }

    /// `scheme://host` of the request, for links put into QR codes.
    func origin(of request: Request) -> String {
        let host = request.headers["Host"].flatMap { Text.hasControlCharacters($0) ? nil : $0 } ?? "localhost"
        return (web.secure ? "https://" : "http://") + host
    }

    /// Queues the kiosk's draft with its receipt and audit row in one transaction, a fresh receipt code
    /// tried again when one is taken.
    func submit(
        _ kiosk: Kiosk, draftLocalID: String, userID: Int64, fields: ReportFields, token: String, located: Bool,
        secretHash: [UInt8], now: Double
    ) throws -> (result: SubmitResult, code: String) {
        var attempt = 0
        while true {
            let receipt = NewReceipt(
                code: Kiosks.newReceiptCode(), secretHash: secretHash, expiresAt: now + KioskSettings.receiptSeconds,
                usedSiteLocation: !located && kiosk.latitude != nil)
            do {
                let result = try store.submit(
                    kioskID: kiosk.id, draftLocalID: draftLocalID, userID: userID, fields: fields, token: token,
                    receipt: receipt, now: now)
                return (result, receipt.code)
            } catch let error as StoreError where error.isConflict && attempt < 4 {
                attempt += 1
            }
        }
    }

    /// `K7Q4-M2XD`: eight characters of an alphabet without 0/O and 1/I, 40 random bits.
    static func newReceiptCode() -> String {
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        let letters = Crypto.randomBytes(8).map { alphabet[Int($0) % alphabet.count] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }

    /// A code as typed or scanned, upper-cased with its dash; nil when it cannot be one.
    static func normalizedCode(_ text: String) -> String? {
        let allowed = Set("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        let letters = text.uppercased().filter { $0 != "-" }
        guard letters.count == 8, letters.allSatisfy({ allowed.contains($0) }) else { return nil }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }
}

extension Web {
    var kioskCookieName: String { secure ? "__Host-har_kiosk" : "har_kiosk" }

    /// Any screen but the kiosk's refuses a tablet that carries a live kiosk credential: it is told to
    /// use a personal device (no personal sign-in on a kiosk, KIO-02). A dead credential (revoked,
    /// unknown, or planted by someone else) refuses nothing: it is cleared from the browser, which goes
    /// on as any other, so it cannot lock a personal browser out of the site.
    func kioskRefusal(_ request: Request, _ context: inout WebContext) -> Response? {
        guard let token = request.cookie(kioskCookieName) else { return nil }
        let live = WebSessions.hash(token: token).flatMap { try? stores.kiosks.kiosk(credentialHash: $0) }
        guard let live, !live.isRevoked else {
            log.security(
                "kiosk.dead_credential_cleared",
                ["path": request.path, "method": request.method, "client": request.remoteAddress])
            context.cookies.append(expiredCookie(kioskCookieName))
            return nil
        }
        log.security(
            "kiosk.refused", ["path": request.path, "method": request.method, "client": request.remoteAddress])
        if context.wantsJSON {
            return jsonError("kiosk", context.messages["kiosk.refused"], status: 403, context: context)
        }
        return errorPage(status: 403, titleKey: "kiosk.refusedTitle", messageKey: "kiosk.refused", context: context)
    }
}

extension RouteGroup where Gate == Kiosks {
    /// A route of the "/kiosk" group: the tablet's live credential (else the not-enrolled page), the
    /// anonymous CSRF token on changes, never a volunteer's session; the tablet is seen now (`Kiosks.admit`).
    mutating func route(
        _ method: String, _ path: String, options: RouteOptions = .init(),
        _ handler: @escaping @Sendable (Request, WebContext, Kiosk) throws -> Response
    ) {
        let kiosks = gate
        addInline(method, path, options: Web.declared(options)) { request in
            do {
                switch try kiosks.admit(request) {
                case .answered(let response): return response
                case .admitted(let context, let kiosk): return try handler(request, context, kiosk)
                }
            } catch let error as StoreError where error.kind == .unavailable {
                return kiosks.storeFailure(request, error)
            }
        }
    }

    mutating func routeAsync(
        _ method: String, _ path: String, options: RouteOptions = .init(),
        _ handler: @escaping @Sendable (Request, WebContext, Kiosk) async throws -> Response
    ) {
        let kiosks = gate
        add(method, path, options: Web.declared(options)) { request in
            do {
                switch try kiosks.admit(request) {
                case .answered(let response): return response
                case .admitted(let context, let kiosk): return try await handler(request, context, kiosk)
                }
            } catch let error as StoreError where error.kind == .unavailable {
                return kiosks.storeFailure(request, error)
            }
        }
    }
}

/// What a kiosk route's request is let in as: answered already (not enrolled, a CSRF refusal), or
/// admitted with its context and kiosk.
enum KioskAdmission {
    case answered(Response)
    case admitted(WebContext, Kiosk)
}

extension Kiosks {
    /// The checks every kiosk route makes before its handler, sync or async alike: the tablet's live
    /// credential (else the not-enrolled page), the CSRF token on changes; the tablet is seen now.
    func admit(_ request: Request) throws -> KioskAdmission {
        let kiosk = try kiosk(of: request)
        // A browser that is no kiosk (a volunteer's, following a link to /kiosk) keeps its session.
        let context = try context(for: request, endsSession: kiosk != nil)
        guard let kiosk else { return .answered(notEnrolled(context)) }
        if let refusal = csrfRefusal(request, context) { return .answered(refusal) }
        seen(kiosk)
        return .admitted(context, kiosk)
    }

    /// The database is down or its disk full: 503 (507) with the message, as on every screen.
    func storeFailure(_ request: Request, _ error: StoreError) -> Response {
        web.storeFailureAnswer(request, access: .page, error: error)
    }

    /// The web context without anyone signed in: a kiosk never carries a volunteer's session (ended
    /// here unless `endsSession` is false: a browser without a live kiosk credential is only shown
    /// the not-enrolled page).
    func context(for request: Request, endsSession: Bool = true) throws -> WebContext {
        var context = try web.context(for: request)
        guard endsSession else { return context }
        if context.session != nil {
            context.user = nil
            context.session = nil
            context.cookies.append(web.expiredCookie(web.sessionCookieName))
            let token = request.cookie(web.csrfCookieName).flatMap { $0.utf8.count == 64 ? $0 : nil }
            context.csrfToken = token ?? Crypto.randomHex(bytes: 32)
            if token == nil {
                context.cookies.append(web.cookie(web.csrfCookieName, context.csrfToken, maxAge: nil))
                context.csrfTokenIsNew = true
            }
        }
        return context
    }

    func csrfRefusal(_ request: Request, _ context: WebContext) -> Response? {
        guard Web.changesState(request.method), !web.csrfIsValid(request, context) else { return nil }
        web.log.security(
            "csrf.refused", ["client": request.remoteAddress, "method": request.method, "path": request.path])
        if context.wantsJSON || request.headers["X-CSRF-Token"] != nil {
            return web.jsonError("csrf", context.messages["errors.csrf"], status: 403, context: context)
        }
        return web.errorPage(status: 403, titleKey: "errors.csrfTitle", messageKey: "errors.csrf", context: context)
    }

    /// A kiosk's photo upload (the visitor's screen and the device's outbox alike): one photo, the
    /// drafts' size limit, and on the request's head, before a byte of the photo, the credential, the
    /// CSRF header, and the room and quota checks of every photo upload (`PhotoRoutes.roomRefusal`:
    /// the disk's floor, the uploads' folder cap, and the quota of the kiosk's own reports' user).
    func photoUploadOptions() -> RouteOptions {
        let maxBody = drafts.options.maxFileBytes + 64 * 1024
        return RouteOptions(
            maxBodyBytes: maxBody, maxFiles: 1, maxFileBytes: drafts.options.maxFileBytes,
            beforeBody: { request in
                let kiosk = try? self.kiosk(of: request)
                guard let context = try? self.context(for: request, endsSession: kiosk != nil) else { return nil }
                guard let kiosk else { return self.notEnrolled(context) }
                if let refused = self.csrfRefusal(request, context) { return refused }
                // A kiosk without an account takes no report (its handlers say so). Its photos are its
                // own reports' and count against its own quota.
                guard kiosk.userID != nil, let owner = kiosk.reportsUserID else { return nil }
                return PhotoRoutes.roomRefusal(
                    request, account: owner, web: self.web, drafts: self.drafts, maxBody: maxBody, context: context)
            })
    }

    /// Last seen, written at most once a minute.
    func seen(_ kiosk: Kiosk, appVersion: String? = nil) {
        let now = WallClock.now()
        guard appVersion != nil || now - (kiosk.lastSeenAt ?? 0) > 60 else { return }
        try? store.touch(kioskID: kiosk.id, appVersion: appVersion, now: now)
    }

    /// The kiosk's idle time: its own, else the configuration's.
    func idleSeconds(_ kiosk: Kiosk) -> Int { kiosk.idleSeconds ?? settings.idleSeconds }
}
