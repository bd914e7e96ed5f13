import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// `/review/kiosks` (coordinators, KIO-01, KIO-07): create a kiosk and get its one-time enrolment link and
/// QR code, list the kiosks with their health, send a kiosk's reports with one's own platform account,
/// revoke one at once. Every step is audited by the store.
enum KioskAdminScreen {
    static func register(on group: inout RouteGroup<Review>, kiosks: Kiosks) {
        group.route("GET", "/kiosks") { request, context, _, _ in
            try page(
                kiosks, context, notice: request.queryValue("done").map { _ in context.messages["kiosk.admin.done"] })
        }
        group.route("POST", "/kiosks", options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context, user, _ in
            let messages = context.messages
            let site = Text.trimmed(String((request.formValue("site") ?? "").prefix(200)))
            guard !site.isEmpty, !Text.hasControlCharacters(site) else {
                return try page(kiosks, context, notice: messages["kiosk.admin.errors.site"], status: 422)
            }
            guard let place = Self.place(request) else {
                return try page(kiosks, context, notice: messages["kiosk.admin.errors.location"], status: 422)
            }
            let idle = (request.formValue("idle") ?? "").isEmpty ? nil : Int(request.formValue("idle") ?? "")
            if let idle, !(5...86_400).contains(idle) {
                return try page(kiosks, context, notice: messages["kiosk.admin.errors.idle"], status: 422)
            }
            let chosen = Set(request.formFields.filter { $0.name == "languages" }.map(\.value))
            let languages = Language.allCases.map(\.rawValue).filter { chosen.contains($0) }
            let now = WallClock.now()
            // A site of the register by reference or number, else a new one (SITE-03).
            let register = try KioskSite.resolve(
                site, latitude: place.latitude, longitude: place.longitude, sites: kiosks.web.stores.sites, now: now)
            let id = try kiosks.store.create(
                NewKiosk(
                    siteName: register.name, latitude: register.latitude, longitude: register.longitude,
                    radiusMetres: place.radius,
                    languages: (languages.isEmpty ? Language.allCases.map(\.rawValue) : languages).joined(
                        separator: ","),
                    idleSeconds: idle, userID: user.id),
                actor: user.email, now: now)
            if let siteID = register.siteID { try kiosks.web.stores.siteReview.linkKiosk(id, toSite: siteID) }
            return try enrolmentPage(kiosks, request, context, kioskID: id, actor: user.email)
        }
        group.route("POST", "/kiosks/:id/link") { request, context, user, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }) else { throw HTTPError(404) }
            return try enrolmentPage(kiosks, request, context, kioskID: id, actor: user.email)
        }
        group.route("POST", "/kiosks/:id/revoke") { request, context, user, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }) else { throw HTTPError(404) }
            _ = try kiosks.store.revoke(id: id, actor: user.email, now: WallClock.now())
            return kiosks.web.redirect("/review/kiosks?done=1", context: context)
        }
        group.route("POST", "/kiosks/:id/account") { request, context, user, role in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }) else { throw HTTPError(404) }
            // An administrator's dedicated account is an administrator's to replace: a coordinator's
            // own would put the kiosk's reports in that person's hands (REV-12).
            if role < .admin, try kiosks.store.kiosk(id: id)?.dedicatedAccount != nil {
                kiosks.web.log.security(
                    "kiosk.account_replace_refused",
                    ["kiosk": String(id), "client": request.remoteAddress, "user": String(user.id)])
                return try page(kiosks, context, notice: context.messages["kiosk.admin.errors.adminsOnly"], status: 403)
            }
            _ = try kiosks.store.setAccount(kioskID: id, userID: user.id, actor: user.email, now: WallClock.now())
            return kiosks.web.redirect("/review/kiosks?done=1", context: context)
        }
    }

    /// Latitude and longitude (both or neither) in range, and a radius of 10 m to 10 km (default 100).
    static func place(_ request: Request) -> (latitude: Double?, longitude: Double?, radius: Double)? {
        func number(_ name: String) -> Double?? {
            let text = Text.trimmed(request.formValue(name) ?? "")
            if text.isEmpty { return .some(nil) }
            guard let value = Double(text), value.isFinite else { return nil }
            return .some(value)
        }
        guard let latitude = number("lat"), let longitude = number("lon"), let radius = number("radius") else {
            return nil
        }
        guard (latitude == nil) == (longitude == nil) else { return nil }
        if let latitude, !(-90...90).contains(latitude) { return nil }
        if let longitude, !(-180...180).contains(longitude) { return nil }
        let metres = radius ?? 100
        guard (10...10_000).contains(metres) else { return nil }
        return (latitude, longitude, metres)
    }

    /// A fresh one-time enrolment link (ten minutes), shown with its QR code; the token is in the
    /// fragment, so it never reaches a server's log.
    static func enrolmentPage(
        _ kiosks: Kiosks, _ request: Request, _ context: WebContext, kioskID: Int64, actor: String
    )
        throws -> Response
    {
        let messages = context.messages
        let token = WebSessions.newToken()
        guard let hash = WebSessions.hash(token: token) else { throw HTTPError(500) }
        let now = WallClock.now()
        guard
            try kiosks.store.issueEnrolment(
                kioskID: kioskID, tokenHash: hash, expiresAt: now + KioskSettings.enrolmentSeconds, actor: actor,
                now: now),
            let kiosk = try kiosks.store.kiosk(id: kioskID)
        else {
            return try page(kiosks, context, notice: messages["kiosk.admin.errors.gone"], status: 404)
        }
        let link = kiosks.origin(of: request) + "/kiosk/enrol#" + token
        let values: [String: MustacheValue] = [
            "enrolment": [
                "site": .string(kiosk.siteName), "link": .string(link),
                "qr": MustacheValue(QRCode.svg(link, label: messages["kiosk.admin.qrLabel"])),
            ]
        ]
        return try render(kiosks, context, values)
    }

    static func page(_ kiosks: Kiosks, _ context: WebContext, notice: String?, status: Int = 200) throws -> Response {
        try render(kiosks, context, ["notice": MustacheValue(notice)], status: status)
    }

    static func render(_ kiosks: Kiosks, _ context: WebContext, _ extra: [String: MustacheValue], status: Int = 200)
        throws -> Response
    {
        let messages = context.messages
        let now = WallClock.now()
        let dayStart = (now / 86_400).rounded(.down) * 86_400
        // The dedicated account's form, and replacing a dedicated account, are for administrators: the
        // routes refuse anyone else.
        let admin = try context.user.map { try kiosks.web.stores.review.role(userID: $0.id) == .admin } ?? false
        let rows = try kiosks.store.kiosks(dayStart: dayStart, now: now).map { summary -> MustacheValue in
            let kiosk = summary.kiosk
            let (account, problem) = accountShown(summary, messages, now: now)
            // The site of the register, linked to its page (SITE-03); else the kiosk's own name.
            let site = try KioskSite.of(
                kiosk: kiosk.id, sites: kiosks.web.stores.sites, review: kiosks.web.stores.siteReview)
            return [
                "id": .string(String(kiosk.id)), "site": .string(kiosk.siteName),
                "registerSite": site.map {
                    ["id": .string(String($0.id)), "name": .string($0.name), "reference": MustacheValue($0.reference)]
                } ?? .null,
                "account": .string(account),
                "accountProblem": .bool(problem),
                // A time (`<time>`, made local by review-time.js) or, in its place, the words.
                "enrolledAt": kiosk.isRevoked ? .null : ReviewLabels.time(kiosk.enrolledAt),
                "enrolled": .string(
                    kiosk.isRevoked ? messages["kiosk.admin.revoked"] : messages["kiosk.admin.notEnrolled"]),
                "lastSeenAt": ReviewLabels.time(kiosk.lastSeenAt),
                "today": .int(summary.reportsToday), "waiting": .int(summary.waitingForReview),
                "version": .string(kiosk.appVersion ?? "—"), "live": .bool(!kiosk.isRevoked),
                "replaceable": .bool(admin || kiosk.dedicatedAccount == nil),
            ]
        }
        var values: [String: MustacheValue] = [
            "kiosks": .array(rows), "isAdmin": .bool(admin), "idleDefault": .int(kiosks.settings.idleSeconds),
            "languageChoices": .array(
                Language.allCases.map { ["code": .string($0.rawValue), "label": .string($0.rawValue.uppercased())] }),
        ]
        for (key, value) in extra { values[key] = value }
        return try kiosks.web.render(
            "review-kiosks", title: messages["kiosk.admin.title"], values, context: context, status: status)
    }
}

extension KioskAdminScreen {
    /// The kiosk's account as `/review/kiosks` says it, and whether it keeps the kiosk from being ready
    /// or its reports from going up (REV-12).
    static func accountShown(_ summary: KioskSummary, _ messages: Messages, now: Double) -> (String, Bool) {
        guard let email = summary.accountEmail else { return (messages["kiosk.admin.noAccount"], true) }
        if summary.kiosk.dedicatedAccount != nil {
            if summary.accountRefused {
                return (messages.format("kiosk.admin.dedicatedRefused", ["email": email]), true)
            }
            if !summary.accountSignedIn {
                return (messages.format("kiosk.admin.dedicatedLapsed", ["email": email]), true)
            }
            return (messages.format("kiosk.admin.accountDedicated", ["email": email]), false)
        }
        if !summary.accountHoldsRole { return (messages.format("kiosk.admin.accountNoRole", ["email": email]), true) }
        if !summary.accountSignedIn { return (messages.format("kiosk.admin.accountLapsed", ["email": email]), true) }
        return (email, false)
    }
}

/// `/kiosk/enrol` (KIO-01): the tablet opens the one-time link; the page posts the token from the link's
/// fragment; the answer sets the device credential and sends the tablet to its attract screen.
enum KioskEnrolment {
    static func register(on group: inout RouteGroup<Kiosks>) {
        let (kiosks, web) = (group.gate, group.gate.web)
        group.open("GET", "/enrol") { request in
            let context = try kiosks.context(for: request)
            return try web.render(
                "kiosk-enrol", title: context.messages["kiosk.enrol.title"], ["kioskPage": true], context: context,
                modules: ["kiosk/enrol"])
        }
        group.open("POST", "/enrol") { request in
            let context = try kiosks.context(for: request)
            if let refusal = kiosks.csrfRefusal(request, context) { return refusal }
            let now = WallClock.now()
            let credential = WebSessions.newToken()
            guard let tokenHash = (request.formValue("token")).flatMap({ WebSessions.hash(token: Text.trimmed($0)) }),
                let credentialHash = WebSessions.hash(token: credential),
                let kioskID = try kiosks.store.enrol(tokenHash: tokenHash, credentialHash: credentialHash, now: now)
            else {
                web.log.security("kiosk.enrol_refused", ["client": request.remoteAddress])
                return web.errorPage(
                    status: 400, titleKey: "kiosk.enrol.failedTitle", messageKey: "kiosk.enrol.failed", context: context
                )
            }
            web.log.info("kiosk \(kioskID) enrolled")
            var answerContext = context
            // Ten years: the coordinator revokes it, not time.
            answerContext.cookies.append(web.cookie(web.kioskCookieName, credential, maxAge: 10 * 365 * 86_400))
            answerContext.cookies.append(web.expiredCookie(web.sessionCookieName))
            return web.redirect("/kiosk", context: answerContext)
        }
    }
}
