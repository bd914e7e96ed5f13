import Basics
import FoundationEssentials
import HTTPServer
import PlatformClient

/// `/review/kiosks/:id/dedicated` (administrators, REV-12): the kiosk sends its reports with a platform
/// account of its own. The administrator gives its e-mail and password once; the server signs in with
/// them at once and keeps only the platform's session (`KioskStatements+Account.swift`). The password is
/// in the request's body only: never in a URL, a log line, a page or the database.
enum KioskAccountScreen {
    static func register(on group: inout RouteGroup<Review>, kiosks: Kiosks) {
        let options = RouteOptions(maxBodyBytes: 4_096)
        group.routeAsync("POST", "/kiosks/:id/dedicated", role: .admin, options: options) {
            request, context, user, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }) else { throw HTTPError(404) }
            return try await configure(kiosks, request, context, kioskID: id, actor: user.email)
        }
    }

    static func configure(_ kiosks: Kiosks, _ request: Request, _ context: WebContext, kioskID: Int64, actor: String)
        async throws -> Response
    {
        let (web, messages) = (kiosks.web, context.messages)
        var form = SignInForm(
            email: request.formValue("account_email") ?? "", password: request.formValue("account_password") ?? "")
        form.validate(messages)
        guard form.isValid else {
            let said = [form.emailError, form.passwordError].compactMap { $0 }.joined(separator: " ")
            return try KioskAdminScreen.page(kiosks, context, notice: said, status: 422)
        }
        // Guessing a password here counts as at the sign-in page: the same limiter, the same keys.
        let now = WallClock.now()
        let limitKeys = web.signInLimiter.keys(address: request.remoteAddress, email: form.email)
        let wait = try web.signInLimiter.wait(keys: limitKeys, now: now)
        if wait > 0 {
            var response = try KioskAdminScreen.page(
                kiosks, context, notice: messages["signin.errors.rateLimited"], status: 429)
            response.headers.add("Retry-After", String(Int(wait.rounded(.up))))
            return response
        }
        let session: PlatformSession
        do {
            let (platform, email, password) = (web.platform, form.email, form.password)
            session = try await withinDeadline(web.platformWait) {
                try await platform.signIn(email: email, password: password)
            }
        } catch {
            if case PlatformError.authenticationFailed = error {
                try web.signInLimiter.failed(keys: limitKeys, now: WallClock.now())
            }
            web.log.security(
                "kiosk.account_refused",
                ["client": request.remoteAddress, "kiosk": String(kioskID), "email": Log.emailDigest(form.email)])
            let said =
                SignInScreen.isPasswordRule(error)
                ? messages["signin.errors.passwordTooShort"] : web.message(for: error, context: context)
            return try KioskAdminScreen.page(
                kiosks, context, notice: messages["kiosk.admin.errors.dedicatedFailed"] + " " + said,
                status: SignInScreen.statusFor(error))
        }
        try web.signInLimiter.succeeded(keys: limitKeys)
        let account = DedicatedAccount(
            email: form.email, accountID: session.accountID, sessionID: session.sessionID,
            expiresAt: session.expirationTime?.timeIntervalSince1970)
        switch try kiosks.store.setDedicatedAccount(account, kioskID: kioskID, actor: actor, now: WallClock.now()) {
        case .done:
            web.log.info("kiosk \(kioskID): dedicated platform account set")
            return web.redirect("/review/kiosks?done=1", context: context)
        case .gone:
            return try KioskAdminScreen.page(kiosks, context, notice: messages["kiosk.admin.errors.gone"], status: 404)
        case .personsAccount:
            return try KioskAdminScreen.page(
                kiosks, context, notice: messages["kiosk.admin.errors.personsAccount"], status: 409)
        }
    }
}
