import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// Report submission (SUB-01..06): the fields, the photo row with its X and a camera tile, Submit.
/// Submit validates, queues the report at once and lands on the list; the transfer is the worker's.
enum SubmitScreen {
    static func register(on group: inout RouteGroup<Web>, drafts: Drafts) {
        let web = group.gate
        group.route("GET", "/reports/new/submit", access: .page) { request, context in
            let user = try context.requireUser()
            let now = WallClock.now()
            let (draft, isNew) = try drafts.open(userID: user.id, now: now)
            let notice = try drafts.expiryNotice(
                request, userID: user.id, isNew: isNew, now: now, messages: context.messages)
            return try page(
                web, context, drafts: drafts, draft: draft, form: SubmitForm(), token: newToken(), expiryNotice: notice)
        }
        group.route("POST", "/reports/new/submit", access: .page) { request, context in
            try submit(request, context, web: web, drafts: drafts)
        }
        SitesNearRoute.register(on: &group)
        group.route("GET", "/api/drafts/:id/suggestions", access: .api) { request, context in
            let user = try context.requireUser()
            guard let id = request.parameters["id"],
                let draft = try drafts.current(localID: id, userID: user.id, now: WallClock.now())
            else {
                if let id = request.parameters["id"],
                    let expired = try drafts.expiredAnswer(
                        localID: id, userID: user.id, json: true, web: web, context: context)
                {
                    return expired
                }
                return web.jsonError(
                    "not_found", context.messages["photos.errors.draftNotFound"], status: 404, context: context)
            }
            return web.json(["names": try drafts.store.suggestions(draft: draft)], context: context)
        }
    }

    /// A fresh token per rendered form: the same token twice is the same submission.
    static func newToken() -> String { Crypto.randomHex(bytes: 32) }

    static func submit(_ request: Request, _ context: WebContext, web: Web, drafts: Drafts) throws -> Response {
        let user = try context.requireUser()
        guard let token = request.formValue("submit_token"), token.utf8.count == 64, Hex.decode(token) != nil,
            let draftID = request.formValue("draft"), PhotoFiles.isValidID(draftID)
        else {
            return web.errorPage(
                status: 400, titleKey: "errors.badRequestTitle", messageKey: "errors.badRequest", context: context)
        }
        guard let draft = try drafts.current(localID: draftID, userID: user.id, now: WallClock.now()) else {
            // Swept while the form was open: the creation page says so (the typed fields cannot make a
            // report without photos). Already queued (a replay, a double click) or cancelled: nothing
            // more to do here.
            if let expired = try drafts.expiredAnswer(
                localID: draftID, userID: user.id, json: context.wantsJSON, web: web, context: context)
            {
                return expired
            }
            return web.redirect("/reports", context: context)
        }
        var form = SubmitForm(request: request)
        try SiteChoice.fill(&form, from: web.stores.siteReview)
        form.validate(context.messages, photoCount: try drafts.store.photoCount(reportID: draft.id))
        guard form.isValid else {
            return try page(web, context, drafts: drafts, draft: draft, form: form, token: token, status: 422)
        }
        switch try drafts.store.submit(
            draftLocalID: draft.localID, userID: user.id, fields: form.fields, token: token, now: WallClock.now())
        {
        case .queued:
            web.worker.reportDue()
            return web.redirect("/reports", context: context)
        case .alreadySubmitted, .gone:
            return web.redirect("/reports", context: context)
        case .noPhotos:
            form.formError = context.messages["submit.errors.noPhotos"]
            return try page(web, context, drafts: drafts, draft: draft, form: form, token: token, status: 422)
        }
    }

    static func page(
        _ web: Web, _ context: WebContext, drafts: Drafts, draft: Draft, form: SubmitForm, token: String,
        status: Int = 200, expiryNotice: String? = nil
    ) throws -> Response {
        let photos = try drafts.store.photos(reportID: draft.id)
        var values = PhotoStrip.values(photos, draft: draft, back: "/reports/new/submit", context: context)
        values["header"] = ["cancel": "/reports/new/cancel"]
        values["draftID"] = .string(draft.localID)
        values["token"] = .string(token)
        values["name"] = .string(form.name)
        values["nameError"] = MustacheValue(form.errors["name"])
        values["formError"] = MustacheValue(form.formError)
        values["expiryNotice"] = MustacheValue(expiryNotice)
        values["selects"] = form.selectValues(context.messages)
        values["maxName"] = .int(SubmitForm.maximumNameLength)
        values["suggestions"] = .array(try drafts.store.suggestions(draft: draft).map { .string($0) })
        let sites = try SiteChoice.nearest(web.stores.siteReview, photos: photos)
        values["siteChoices"] = SiteChoice.values(sites, chosen: form.siteID, messages: context.messages)
        values["hasSiteChoices"] = .bool(!sites.isEmpty)
        values["noSiteChosen"] = .bool(form.siteID == nil || !sites.contains { $0.site.id == form.siteID })
        values["cameraTile"] = .bool(photos.count < Draft.maximumPhotos)
        values["submitJSON"] = .string(
            ScriptJSON.encode([
                "draft": draft.localID, "removed": context.messages["photos.removed"],
                "failed": context.messages["photos.errors.failed"],
                "noPhotos": context.messages["submit.errors.noPhotos"],
            ]))
        return try web.render(
            "submit", title: context.messages["submit.title"], values, context: context, status: status,
            modules: ["submit", "site-choice"])
    }
}
