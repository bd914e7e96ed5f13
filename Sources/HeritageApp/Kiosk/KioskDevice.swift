import Basics
import FoundationEssentials
import HTTPServer
import Mustache

/// The tablet off the network (docs/KIOSK.md): when the server cannot be reached, the kiosk's
/// service worker (`/kiosk/sw.js`, scope `/kiosk`) answers the visitor's screens with the offline shell
/// (`/kiosk/offline`), which keeps each finished report in the tablet's outbox (`kiosk/outbox.js`) and
/// shows a "will be sent" receipt. When the server answers again the outbox sends each report here in
/// the three steps of the volunteer's device outbox (`DeviceReportRoutes`), by the kiosk's credential
/// instead of a user's session: open (`POST /kiosk/device/reports/{id}`, made once), its photos (the
/// upload with the device's `photo_id`, kept once), submit (queued once, then recorded as the kiosk's:
/// waits for review). Every repeat gets the first answer; the tablet forgets a report only after the
/// submit's answer.
enum KioskDevice {
    static func register(on group: inout RouteGroup<Kiosks>, publicDir: String) {
        let (kiosks, web) = (group.gate, group.gate.web)
        // Open as `/sw.js` is: a module worker's script is fetched without cookies (the tablet's credential
        // would not come with it), and it holds nothing but the site's public code and static files' list.
        let prologue = ServiceWorkerRoute.prologue(publicDir: publicDir)
        group.open("GET", "/sw.js") { request in
            try ServiceWorkerRoute.worker(
                publicDir + "/js/kiosk/sw.js", prologue: prologue, allowed: "/kiosk", request: request)
        }
        group.route("GET", "/offline") { request, context, kiosk in
            // `?lang=` (one of the kiosk's languages): the shell in that language, which the service worker
            // keeps beside the default one so that the language buttons work off the network (kiosk/offline.js sets
            // the language cookie through /kiosk/lang once the server answers again).
            var context = context
            let codes = kiosk.languages.split(separator: ",").map(String.init)
            if let code = request.queryValue("lang"), codes.contains(code), let language = Language(rawValue: code) {
                context.messages = web.catalog.messages(for: language)
            }
            var values = KioskVisitor.values(kiosks, kiosk, context, step: "offline")
            values["shellLanguages"] = .string(
                Language.allCases.filter { codes.contains($0.rawValue) }.map(\.rawValue).joined(separator: ","))
            var form = SubmitForm()
            form.name = kiosk.siteName
            values["name"] = .string(form.name)
            values["selects"] = form.selectValues(context.messages)
            values["maxName"] = .int(SubmitForm.maximumNameLength)
            return try web.render(
                "kiosk-offline", title: kiosk.siteName, values, context: context,
                modules: ["kiosk/main"])
        }
        group.route("GET", "/device/session") { _, context, _ in
            web.json(["csrf": context.csrfToken], context: context)
        }
        group.route("POST", "/device/reports/:id") { request, context, kiosk in
            guard let id = request.parameters["id"], PhotoFiles.isValidID(id) else {
                return web.jsonError("bad_id", context.messages["photos.errors.badID"], status: 400, context: context)
            }
            switch try kiosks.store.openDeviceReport(kioskID: kiosk.id, localID: id, now: WallClock.now()) {
            case .draft(let draft):
                let photos = try kiosks.drafts.store.photos(reportID: draft.id).map(\.localID)
                return web.json(
                    DeviceReportRoutes.Opened(id: id, state: "draft", photos: photos), context: context)
            case .submitted:
                return web.json(DeviceReportRoutes.Opened(id: id, state: "submitted", photos: []), context: context)
            case .elsewhere:
                return web.jsonError("bad_id", context.messages["photos.errors.badID"], status: 409, context: context)
            case nil:
                return web.jsonError("not_ready", context.messages["kiosk.notReady"], status: 503, context: context)
            }
        }
        let upload = kiosks.photoUploadOptions()
        let work = kiosks.drafts.photoWork  // the process's photo threads (Drafts.photoWork)
        group.routeAsync("POST", "/device/reports/:id/photos", options: upload) {
            request, context, kiosk in
            guard let id = request.parameters["id"], PhotoFiles.isValidID(id),
                case .draft(let draft) = try kiosks.store.openDeviceReport(
                    kioskID: kiosk.id, localID: id, now: WallClock.now())
            else {
                return web.jsonError(
                    "not_found", context.messages["photos.errors.draftNotFound"], status: 404, context: context)
            }
            var context = context
            context.user = WebUser(
                id: draft.userID, email: "", fullname: nil, settings: UserSettings(), platformSessionID: nil,
                platformSessionExpiresAt: nil)
            return try await DraftPhotoUpload(web: web, drafts: kiosks.drafts, work: work).answer(request, context)
        }
        group.route("POST", "/device/reports/:id/submit", options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context, kiosk in
            try submit(kiosks, kiosk, request, context)
        }
    }

    /// Queues the tablet's report and records it as the kiosk's (it waits for review, KIO-05). Its
    /// receipt row has a code and secret nobody holds: the visitor was shown a "will be sent" receipt.
    static func submit(_ kiosks: Kiosks, _ kiosk: Kiosk, _ request: Request, _ context: WebContext) throws -> Response {
        let web = kiosks.web
        guard let id = request.parameters["id"], PhotoFiles.isValidID(id),
            let token = request.formValue("submit_token"), token.utf8.count == 64, Hex.decode(token) != nil
        else {
            return web.jsonError("bad_request", context.messages["errors.badRequest"], status: 400, context: context)
        }
        let now = WallClock.now()
        let submitted = web.json(DeviceReportRoutes.Opened(id: id, state: "submitted", photos: []), context: context)
        switch try kiosks.store.openDeviceReport(kioskID: kiosk.id, localID: id, now: now) {
        case .submitted: return submitted
        case .elsewhere, nil:
            return web.jsonError(
                "not_found", context.messages["photos.errors.draftNotFound"], status: 404, context: context)
        case .draft(let draft):
            var form = SubmitForm(request: request)
            form.validate(context.messages, photoCount: try kiosks.drafts.store.photoCount(reportID: draft.id))
            guard form.isValid else {
                let message = form.formError ?? form.errors.sorted { $0.key < $1.key }.first?.value ?? ""
                return web.jsonError("invalid", message, status: 422, context: context)
            }
            let located = try kiosks.drafts.store.photos(reportID: draft.id).contains { $0.latitude != nil }
            guard let secretHash = WebSessions.hash(token: WebSessions.newToken()) else { throw HTTPError(500) }
            switch try kiosks.submit(
                kiosk, draftLocalID: id, userID: draft.userID, fields: form.fields, token: token, located: located,
                secretHash: secretHash, now: now
            ).result {
            case .queued: break
            case .alreadySubmitted, .gone: return submitted
            case .noPhotos:
                return web.jsonError(
                    "invalid", context.messages["submit.errors.noPhotos"], status: 422, context: context)
            }
            kiosks.web.worker.reportDue()
            return submitted
        }
    }
}
