import Basics
import HTTPServer

/// The server's side of the browser's outbox (OFF-02/04): a report made on the device, with
/// the id the device gave it, arrives in three steps that can each be sent again when an answer is lost:
/// open (`POST /api/device/reports/{id}`: the draft, made once), its photos (the photo upload with the
/// device's `photo_id`: kept once, `PhotoRoutes`), and submit (`…/submit`: queued once). Every repeat
/// gets the answer the first one got; the device forgets the report only after the submit's answer.
enum DeviceReportRoutes {
    struct Opened: Encodable {
        var id: String
        /// "draft" (photos may follow) or "submitted" (nothing more to send).
        var state: String
        /// The photo ids the server has already: the device need not send them again.
        var photos: [String]
    }

    static func register(on group: inout RouteGroup<Web>, drafts: Drafts) {
        let web = group.gate
        group.route("POST", "/api/device/reports/:id", access: .api) { request, context in
            let user = try context.requireUser()
            guard let id = request.parameters["id"], PhotoFiles.isValidID(id) else {
                return web.jsonError("bad_id", context.messages["photos.errors.badID"], status: 400, context: context)
            }
            switch try drafts.store.openDeviceDraft(localID: id, userID: user.id, now: WallClock.now()) {
            case .draft(let draft):
                let photos = try drafts.store.photos(reportID: draft.id).map(\.localID)
                return web.json(Opened(id: id, state: "draft", photos: photos), context: context)
            case .submitted:
                return web.json(Opened(id: id, state: "submitted", photos: []), context: context)
            case .elsewhere:
                return web.jsonError("bad_id", context.messages["photos.errors.badID"], status: 409, context: context)
            }
        }
        group.route("POST", "/api/device/reports/:id/submit", access: .api) { request, context in
            try submit(request, context, web: web, drafts: drafts)
        }
    }

    /// Queues the device's report with the form's fields; a report already queued (this request sent
    /// again) is answered as the first time.
    static func submit(_ request: Request, _ context: WebContext, web: Web, drafts: Drafts) throws -> Response {
        let user = try context.requireUser()
        guard let id = request.parameters["id"], PhotoFiles.isValidID(id),
            let token = request.formValue("submit_token"), token.utf8.count == 64, Hex.decode(token) != nil
        else {
            return web.jsonError("bad_request", context.messages["errors.badRequest"], status: 400, context: context)
        }
        let submitted = web.json(Opened(id: id, state: "submitted", photos: []), context: context)
        guard let draft = try drafts.current(localID: id, userID: user.id, now: WallClock.now()) else {
            if try drafts.store.isSubmitted(localID: id, userID: user.id) { return submitted }
            return try drafts.expiredAnswer(localID: id, userID: user.id, json: true, web: web, context: context)
                ?? web.jsonError(
                    "not_found", context.messages["photos.errors.draftNotFound"], status: 404, context: context)
        }
        var form = SubmitForm(request: request)
        try SiteChoice.fill(&form, from: web.stores.siteReview)
        form.validate(context.messages, photoCount: try drafts.store.photoCount(reportID: draft.id))
        guard form.isValid else {
            let message = form.formError ?? form.errors.sorted { $0.key < $1.key }.first?.value ?? ""
            return web.jsonError("invalid", message, status: 422, context: context)
        }
        switch try drafts.store.submit(
            draftLocalID: id, userID: user.id, fields: form.fields, token: token, now: WallClock.now())
        {
        case .queued:
            web.worker.reportDue()
            return submitted
        case .alreadySubmitted:
            return submitted
        case .gone:
            // Queued by the same request sent a moment earlier, or gone meanwhile.
            if try drafts.store.isSubmitted(localID: id, userID: user.id) { return submitted }
            return web.jsonError(
                "not_found", context.messages["photos.errors.draftNotFound"], status: 404, context: context)
        case .noPhotos:
            return web.jsonError("invalid", context.messages["submit.errors.noPhotos"], status: 422, context: context)
        }
    }
}
