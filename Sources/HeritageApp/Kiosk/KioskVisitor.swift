import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// The visitor's flow on a kiosk (KIO-03): attract → photos → form → receipt → attract, one step a
/// screen, each with the language buttons. The visitor's unfinished report is the kiosk's visit; the
/// attract screen, Start and the idle reset (KIO-04) discard it, photos and all. Every page is `no-store`.
enum KioskVisitor {
    static func register(on group: inout RouteGroup<Kiosks>) {
        let (kiosks, web) = (group.gate, group.gate.web)
        group.route("GET", "") { request, context, kiosk in
            // The attract screen means nobody is in the middle of a report: whatever was left goes.
            discard(kiosks, kiosk)
            return try web.render(
                "kiosk-attract", title: kiosk.siteName, values(kiosks, kiosk, context, step: "attract"),
                context: context, modules: ["kiosk/main"])
        }
        group.route("POST", "/start") { request, context, kiosk in
            let version = request.formValue("app_version").map { String($0.prefix(40)) }
            kiosks.seen(kiosk, appVersion: version.flatMap { Text.hasControlCharacters($0) ? nil : $0 })
            let started = try kiosks.store.startVisit(
                kioskID: kiosk.id, localID: UUID().uuidString.lowercased(), now: WallClock.now())
            for photo in started.discarded { kiosks.drafts.files.remove(photo) }
            guard started.draft != nil else {
                return web.errorPage(
                    status: 503, titleKey: "kiosk.notReadyTitle", messageKey: "kiosk.notReady", context: context)
            }
            return web.redirect("/kiosk/photos", context: context)
        }
        group.route("GET", "/photos") { request, context, kiosk in
            guard let visit = try kiosks.store.visit(kioskID: kiosk.id) else {
                return web.redirect("/kiosk", context: context)
            }
            var values = values(kiosks, kiosk, context, step: "photos")
            let count = try kiosks.drafts.store.photoCount(reportID: visit.id)
            values["photoCount"] = .int(count)
            values["noPhotos"] = .bool(count == 0)
            values["visit"] = .string(visit.localID)
            return try web.render(
                "kiosk-photos", title: context.messages["kiosk.photos.title"], values, context: context,
                modules: ["kiosk/main"])
        }
        let upload = kiosks.photoUploadOptions()
        let work = kiosks.drafts.photoWork  // the process's photo threads (Drafts.photoWork)
        group.routeAsync("POST", "/photos", options: upload) { request, context, kiosk in
            guard let visit = try kiosks.store.visit(kioskID: kiosk.id) else {
                return web.jsonError(
                    "not_found", context.messages["photos.errors.draftNotFound"], status: 404, context: context)
            }
            // The upload of the creation page, on the visit's draft as its account's.
            var request = request
            request.parameters["id"] = visit.localID
            var context = context
            context.user = WebUser(
                id: visit.userID, email: "", fullname: nil, settings: UserSettings(), platformSessionID: nil,
                platformSessionExpiresAt: nil)
            return try await DraftPhotoUpload(web: web, drafts: kiosks.drafts, work: work).answer(request, context)
        }
        group.route("GET", "/form") { request, context, kiosk in
            guard let visit = try kiosks.store.visit(kioskID: kiosk.id) else {
                return web.redirect("/kiosk", context: context)
            }
            var form = SubmitForm()
            form.name = kiosk.siteName
            return try formPage(kiosks, kiosk, visit, form, context)
        }
        group.route("POST", "/submit", options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context, kiosk in
            try submit(kiosks, kiosk, request, context)
        }
        group.route("POST", "/reset") { request, context, kiosk in
            discard(kiosks, kiosk)
            if context.wantsJSON || request.headers["X-CSRF-Token"] != nil {
                return web.json(["reset": "ok"], context: context)
            }
            return web.redirect("/kiosk", context: context)
        }
        group.route("POST", "/lang") { request, context, kiosk in
            guard let code = request.formValue("lang"), let language = Language(rawValue: code),
                kiosk.languages.split(separator: ",").contains(Substring(code))
            else {
                return web.errorPage(
                    status: 400, titleKey: "errors.badRequestTitle", messageKey: "errors.badRequest", context: context)
            }
            var context = context
            context.cookies.append(web.cookie(Web.languageCookieName, language.rawValue, maxAge: 365 * 24 * 3600))
            let back = LanguageSwitch.localPath(request.formValue("back"))
            return web.redirect(back.hasPrefix("/kiosk") ? back : "/kiosk", context: context)
        }
    }

    /// Discards the visitor's unfinished report on the server, files too.
    static func discard(_ kiosks: Kiosks, _ kiosk: Kiosk) {
        do {
            for photo in try kiosks.store.endVisit(kioskID: kiosk.id, now: WallClock.now()) {
                kiosks.drafts.files.remove(photo)
            }
        } catch {
            kiosks.web.log.error("kiosk \(kiosk.id): cannot discard the visit: \(error)")
        }
    }

    /// What every kiosk page has: the site, the step, the idle settings, the kiosk's languages.
    static func values(_ kiosks: Kiosks, _ kiosk: Kiosk, _ context: WebContext, step: String) -> [String: MustacheValue]
    {
        let codes = kiosk.languages.split(separator: ",").map(String.init)
        return [
            "kioskPage": true, "site": .string(kiosk.siteName), "step": .string(step),
            "idleSeconds": .int(kiosks.idleSeconds(kiosk)), "countdownSeconds": .int(kiosks.settings.countdownSeconds),
            "receiptSeconds": .int(kiosks.settings.receiptSeconds),
            "qrSeconds": .int(min(kiosks.settings.qrSeconds, kiosks.settings.receiptSeconds)),
            "radius": .int(Int(kiosk.radiusMetres)), "hasSiteLocation": .bool(kiosk.latitude != nil),
            "kioskLanguages": .array(
                Language.allCases.filter { codes.contains($0.rawValue) }.map { language in
                    [
                        "code": .string(language.rawValue), "label": .string(language.rawValue.uppercased()),
                        "current": .bool(language == context.language),
                    ]
                }),
            "appVersion": .string(Command.version),
        ]
    }

    static func formPage(
        _ kiosks: Kiosks, _ kiosk: Kiosk, _ visit: Draft, _ form: SubmitForm, _ context: WebContext, status: Int = 200
    ) throws -> Response {
        var values = values(kiosks, kiosk, context, step: "form")
        values["name"] = .string(form.name)
        values["nameError"] = MustacheValue(form.errors["name"])
        values["formError"] = MustacheValue(form.formError)
        values["selects"] = form.selectValues(context.messages)
        values["token"] = .string(SubmitScreen.newToken())
        values["maxName"] = .int(SubmitForm.maximumNameLength)
        values["photoCount"] = .int(try kiosks.drafts.store.photoCount(reportID: visit.id))
        values["visit"] = .string(visit.localID)
        return try kiosks.web.render(
            "kiosk-form", title: context.messages["kiosk.form.title"], values, context: context, status: status,
            modules: ["kiosk/main"])
    }

    /// Queues the visit (it waits for review under the default policy, KIO-05), then its receipt: a code
    /// and a claim secret of which only the SHA-256 is kept; the secret is shown once, in the QR code's
    /// fragment.
    static func submit(_ kiosks: Kiosks, _ kiosk: Kiosk, _ request: Request, _ context: WebContext) throws -> Response {
        let web = kiosks.web
        guard let visit = try kiosks.store.visit(kioskID: kiosk.id) else {
            return web.redirect("/kiosk", context: context)
        }
        guard let token = request.formValue("submit_token"), token.utf8.count == 64, Hex.decode(token) != nil else {
            return web.errorPage(
                status: 400, titleKey: "errors.badRequestTitle", messageKey: "errors.badRequest", context: context)
        }
        var form = SubmitForm(request: request)
        form.validate(context.messages, photoCount: try kiosks.drafts.store.photoCount(reportID: visit.id))
        guard form.isValid else { return try formPage(kiosks, kiosk, visit, form, context, status: 422) }
        let now = WallClock.now()
        let located = try kiosks.drafts.store.photos(reportID: visit.id).contains { $0.latitude != nil }
        let secret = WebSessions.newToken()
        guard let secretHash = WebSessions.hash(token: secret) else { throw HTTPError(500) }
        // The report, its receipt and its audit row in one transaction.
        let (result, code) = try kiosks.submit(
            kiosk, draftLocalID: visit.localID, userID: visit.userID, fields: form.fields, token: token,
            located: located, secretHash: secretHash, now: now)
        switch result {
        case .queued: break
        case .noPhotos: return try formPage(kiosks, kiosk, visit, form, context, status: 422)
        case .alreadySubmitted, .gone: return web.redirect("/kiosk", context: context)
        }
        kiosks.web.worker.reportDue()
        let link = kiosks.origin(of: request) + "/r/" + code + "#" + secret
        var values = values(kiosks, kiosk, context, step: "receipt")
        values["code"] = .string(code)
        values["qr"] = MustacheValue(QRCode.svg(link, label: context.messages["kiosk.receipt.qrLabel"]))
        values["usedSiteLocation"] = .bool(!located)
        return try web.render(
            "kiosk-receipt", title: context.messages["kiosk.receipt.title"], values, context: context,
            modules: ["kiosk/main"])
    }
}
