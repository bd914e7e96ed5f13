import Basics
import HTTPServer
import Mustache
import PlatformClient

/// The sign-in screen (LOG-01..16), the forgot-password explanation, and sign-out.
/// The page works without JavaScript: the form posts, the server checks exactly what the browser
/// checks (`SignInForm`) and re-shows the page with the same messages.
enum SignInScreen {
    static func register(on group: inout RouteGroup<Web>) {
        let web = group.gate
        group.route("GET", "/signin", access: .anyone) { request, context in
            if context.user != nil { return web.redirect("/reports", context: context) }
            let notice = request.queryValue("notice").flatMap { ["expired", "signedOut"].contains($0) ? $0 : nil }
            return try page(
                web, context, form: SignInForm(), notice: notice.map { context.messages["signin.notice.\($0)"] })
        }
        // A sign-in form is a few hundred bytes: anything near 64 KB is not one (413 before parsing).
        group.routeAsync("POST", "/signin", access: .anyone, options: RouteOptions(maxBodyBytes: 65_536)) {
            request, context in
            try await signIn(request, context, web: web)
        }
        group.route("GET", "/forgot-password", access: .anyone) { _, context in
            try web.render("forgot", title: context.messages["forgot.title"], context: context)
        }
        group.route("POST", "/signout", access: .page) { _, context in
            var context = context
            if let session = context.session { try web.sessions.delete(session: session) }
            context.cookies.append(web.expiredCookie(web.sessionCookieName))
            var answer = web.redirect("/signin?notice=signedOut", context: context)
            // The list is kept by the browser (`private, no-cache`): not past the sign-out.
            answer.headers.add("Clear-Site-Data", "\"cache\"")
            return answer
        }
    }

    static func signIn(_ request: Request, _ context: WebContext, web: Web) async throws -> Response {
        let form = SignInForm(email: request.formValue("email") ?? "", password: request.formValue("password") ?? "")
        var checked = form
        checked.validate(context.messages)
        guard checked.isValid else { return try page(web, context, form: checked, status: 422) }

        let now = WallClock.now()
        let limitKeys = web.signInLimiter.keys(address: request.remoteAddress, email: checked.email)
        let wait = try web.signInLimiter.wait(keys: limitKeys, now: now)
        if wait > 0 {
            web.log.security(
                "signin.limited", ["client": request.remoteAddress, "email": Log.emailDigest(checked.email)])
            checked.formError = context.messages["signin.errors.rateLimited"]
            var response = try page(web, context, form: checked, status: 429)
            response.headers.add("Retry-After", String(Int(wait.rounded(.up))))
            return response
        }
        let platformSession: PlatformSession
        do {
            let (platform, email, password) = (web.platform, checked.email, checked.password)
            platformSession = try await withinDeadline(web.platformWait) {
                try await platform.signIn(email: email, password: password)
            }
        } catch {
            web.log.info("sign-in refused by the platform: \(error)")
            let reason = if case PlatformError.authenticationFailed = error { "wrong-password" } else { "platform" }
            // Only a wrong password counts: an unreachable platform is nobody's guess.
            if reason == "wrong-password" { try web.signInLimiter.failed(keys: limitKeys, now: WallClock.now()) }
            web.log.security(
                "signin.failure",
                ["client": request.remoteAddress, "email": Log.emailDigest(checked.email), "reason": reason])
            if isPasswordRule(error) {
                // The platform's password rule (a new account): said next to the password field.
                checked.passwordError = context.messages["signin.errors.passwordTooShort"]
                return try page(web, context, form: checked, status: 422)
            }
            checked.formError = web.message(for: error, context: context)
            return try page(web, context, form: checked, status: statusFor(error))
        }
        // Rotation: the session cookie the browser came with (if any) is dropped, a new one is made.
        let made: (token: String, session: WebSession)
        do {
            made = try web.sessions.signIn(
                email: checked.email, platform: platformSession, replacing: request.cookie(web.sessionCookieName),
                userAgent: request.headers["User-Agent"], clientAddress: request.remoteAddress, now: now)
        } catch is AccountMismatch {
            // Identity is the platform's account: another account's drafts and list are never handed over.
            web.log.security(
                "signin.accountMismatch", ["client": request.remoteAddress, "email": Log.emailDigest(checked.email)])
            checked.formError = context.messages["signin.errors.otherAccount"]
            return try page(web, context, form: checked, status: 409)
        } catch is KioskAccountSignIn {
            web.log.security(
                "signin.kioskAccount", ["client": request.remoteAddress, "email": Log.emailDigest(checked.email)])
            checked.formError = context.messages["signin.errors.kioskAccount"]
            return try page(web, context, form: checked, status: 409)
        }
        try web.signInLimiter.succeeded(keys: limitKeys)
        if let accountID = platformSession.accountID {
            // A grant to this e-mail becomes a role only for a verified account or once an administrator
            // has confirmed this first sign-in (REV-10).
            let binding = try web.stores.review.signedIn(
                email: checked.email, accountID: accountID, verified: platformSession.isVerified == true,
                address: request.remoteAddress, now: now)
            if case .awaitingConfirmation = binding {
                web.log.security(
                    "role.pending_signin",
                    ["client": request.remoteAddress, "email": Log.emailDigest(checked.email)])
            } else if case .otherAccount = binding {
                web.log.security(
                    "role.other_account", ["client": request.remoteAddress, "email": Log.emailDigest(checked.email)])
            }
        }
        var context = context
        let lifetime = max(60, Int(made.session.expiresAt - now))
        // Persistent (Max-Age), so the sign-in outlives a browser restart until the platform session ends.
        context.cookies.append(web.cookie(web.sessionCookieName, made.token, maxAge: lifetime))
        web.worker.userSignedIn(made.session.userID)
        // The language of the sign-in page is the one their mail will speak (until they switch).
        try? web.stores.mail.recordLanguage(userID: made.session.userID, language: context.language.rawValue)
        web.log.security(
            "signin.success",
            [
                "client": request.remoteAddress, "email": Log.emailDigest(checked.email),
                "user": String(made.session.userID),
            ])
        return web.redirect("/reports", context: context)
    }

    /// The platform refused the password of a new account as too short (`InvalidArgumentException` on
    /// the password field).
    static func isPasswordRule(_ error: any Error) -> Bool {
        guard case PlatformError.rejected(400, "InvalidArgumentException", let message) = error else { return false }
        return message.contains("password") && message.contains("at least")
    }

    /// The HTTP status of the re-shown page, for scripts and tests; the words are what people read.
    static func statusFor(_ error: any Error) -> Int {
        guard let error = error as? PlatformError else { return 500 }
        switch error {
        case .authenticationFailed: return 401
        case .retryLater, .outcomeUnknown: return 503
        default: return 502
        }
    }

    static func page(_ web: Web, _ context: WebContext, form: SignInForm, notice: String? = nil, status: Int = 200)
        throws -> Response
    {
        let values: [String: MustacheValue] = [
            "email": .string(form.email), "emailError": MustacheValue(form.emailError),
            "passwordError": MustacheValue(form.passwordError), "formError": MustacheValue(form.formError),
            "notice": MustacheValue(notice), "maxEmail": .int(AddressSpec.maximumLength),
        ]
        return try web.render(
            "signin", title: context.messages["signin.title"], values, context: context, status: status,
            modules: ["signin"])
    }
}

/// What the sign-in form holds and the messages for it; the checks of `Public/js/signin.js`.
struct SignInForm: Sendable {
    var email = ""
    var password = ""
    var emailError: String?
    var passwordError: String?
    var formError: String?

    /// Longest password sent on; anything longer is refused before it reaches the platform.
    static let maximumPasswordLength = 1024

    init(email: String = "", password: String = "") {
        // LOG-08: the e-mail is trimmed as it is when the field is left.
        self.email = Text.trimmed(email)
        self.password = password
    }

    var isValid: Bool { emailError == nil && passwordError == nil }

    mutating func validate(_ messages: Messages) {
        if email.isEmpty {
            emailError = messages["signin.errors.emailEmpty"]  // LOG-12
        } else if email.utf8.count > AddressSpec.maximumLength {
            emailError = messages["signin.errors.emailTooLong"]
        } else if !AddressSpec.isValid(email) {
            emailError = messages["signin.errors.emailInvalid"]  // LOG-11
        }
        if password.isEmpty {
            passwordError = messages["signin.errors.passwordEmpty"]  // LOG-13
        } else if password.utf8.count > Self.maximumPasswordLength {
            passwordError = messages["signin.errors.passwordTooLong"]
        }
        if email.utf8.count > 4096 { email = String(email.prefix(256)) }  // never echo a huge value back
    }
}
