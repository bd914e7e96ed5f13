import Basics
import FoundationEssentials
import HTTPServer
import Imaging
import PlatformClient

/// Photos of drafts: upload (CRE-05, the file-input fallback), removal (CRE-09, SUB-04) and serving to
/// their owner only. Nothing uploaded is ever served as HTML or script: the type is the one libvips
/// recognised, with nosniff and a CSP that allows nothing.
enum PhotoRoutes {
    static func register(on group: inout RouteGroup<Web>, drafts: Drafts) {
        let web = group.gate
        // The body limit of this route is one photo plus its few text fields; the session, the CSRF
        // header, the size and the room for it are checked on the head, before a byte of body is read.
        let maxBody = drafts.options.maxFileBytes + 64 * 1024
        let upload = RouteOptions(
            maxBodyBytes: maxBody, maxFiles: 1, maxFileBytes: drafts.options.maxFileBytes,
            beforeBody: { request in uploadGate(request, web: web, drafts: drafts, maxBody: maxBody) })
        // Decoding and fsync block: on the process's photo threads (`Drafts.photoWork`).
        let work = drafts.photoWork
        group.routeAsync("POST", "/api/drafts/:id/photos", access: .api, options: upload) { request, context in
            try await DraftPhotoUpload(web: web, drafts: drafts, work: work).answer(request, context)
        }
        group.route("DELETE", "/api/drafts/:id/photos/:photo", access: .api) { request, context in
            try remove(request, context, web: web, drafts: drafts)
        }
        // The same by form (SUB-04 without JavaScript): back to the page it came from.
        group.route("POST", "/api/drafts/:id/photos/:photo/delete", access: .page) { request, context in
            try remove(request, context, web: web, drafts: drafts)
        }
        group.route("GET", "/photos/:photo/thumb", access: .page) { request, context in
            try serve(request, context, web: web, drafts: drafts, thumbnail: true)
        }
        group.route("GET", "/photos/:photo", access: .page) { request, context in
            try serve(request, context, web: web, drafts: drafts, thumbnail: false)
        }
    }

    /// The answer to an upload refused on its head (401 signed out, 403 no or wrong `X-CSRF-Token`, 413
    /// too large, 507 no room), or nil to read its body. The no-JavaScript page never uploads: the
    /// photo strip's `fetch` always sends the token in the header.
    static func uploadGate(_ request: Request, web: Web, drafts: Drafts, maxBody: Int) -> Response? {
        guard let context = try? web.context(for: request) else { return nil }  // the handler will say
        if context.user == nil {
            return web.signedOutAnswer(access: .api, context: context, notice: context.sessionEnded ? "expired" : nil)
        }
        if !web.csrfIsValid(request, context) {
            web.log.security(
                "csrf.refused", ["client": request.remoteAddress, "method": request.method, "path": request.path])
            return web.jsonError("csrf", context.messages["errors.csrf"], status: 403, context: context)
        }
        guard let user = context.user else { return nil }
        return roomRefusal(request, account: user.id, web: web, drafts: drafts, maxBody: maxBody, context: context)
    }

    /// The answer to a photo upload that its head shows cannot be taken (413 too large, 429 past the
    /// quota of `account`, the account its photo is filed under, 507 no room on the disk), or nil. Every
    /// photo upload's gate ends with it: the creation page's, the needs-info answer's, a kiosk's.
    static func roomRefusal(
        _ request: Request, account: Int64, web: Web, drafts: Drafts, maxBody: Int, context: WebContext
    ) -> Response? {
        let length = request.headers["Content-Length"].flatMap { Int($0) }
        if let length, length > maxBody {
            return web.jsonError("too_large", context.messages["photos.errors.tooLarge"], status: 413, context: context)
        }
        if let refusal = quotaRefusal(userID: account, incoming: length ?? 0, web: web, drafts: drafts) {
            web.log.security(
                "quota.reached", ["client": request.remoteAddress, "user": String(account), "quota": refusal])
            return web.jsonError(
                "quota", context.messages["photos.errors.quota.\(refusal)"], status: 429, context: context)
        }
        if let room = drafts.options.uploadRoom, let refusal = room.refusal(incoming: length ?? maxBody) {
            web.log.warning(
                "photo upload refused: \(refusal == .diskNearlyFull ? "free disk space under the floor" : "temporary folder at its cap")"
            )
            return web.jsonError("no_room", context.messages["photos.errors.noRoom"], status: 507, context: context)
        }
        return nil
    }

    /// Which per-user quota an upload of `incoming` bytes would pass ("perDay", "bytes"); nil: none.
    static func quotaRefusal(userID: Int64, incoming: Int, web: Web, drafts: Drafts) -> String? {
        let options = drafts.options
        guard options.photosPerDay > 0 || options.undeliveredBytesPerUser > 0,
            let usage = try? web.stores.photoQuota.photoUsage(userID: userID, since: WallClock.now() - 86_400)
        else { return nil }
        if options.photosPerDay > 0 && usage.addedSince >= options.photosPerDay { return "perDay" }
        if options.undeliveredBytesPerUser > 0 && usage.undeliveredBytes + incoming > options.undeliveredBytesPerUser {
            return "bytes"
        }
        return nil
    }

    static func remove(_ request: Request, _ context: WebContext, web: Web, drafts: Drafts) throws -> Response {
        let user = try context.requireUser()
        let notFound = web.jsonError(
            "not_found", context.messages["photos.errors.notFound"], status: 404, context: context)
        guard let id = request.parameters["id"], let photo = request.parameters["photo"], PhotoFiles.isValidID(photo)
        else {
            return notFound
        }
        let now = WallClock.now()
        guard let draft = try drafts.current(localID: id, userID: user.id, now: now) else {
            let json = request.method != "POST" || context.wantsJSON
            return try drafts.expiredAnswer(localID: id, userID: user.id, json: json, web: web, context: context)
                ?? notFound
        }
        guard try drafts.store.deletePhoto(localID: photo, draft: draft, now: now) else { return notFound }
        drafts.files.remove(photo)
        if request.method == "POST" && !context.wantsJSON {
            return web.redirect(LanguageSwitch.localPath(request.formValue("back") ?? "/reports/new"), context: context)
        }
        let count = try drafts.store.photoCount(reportID: draft.id)
        return web.json(["removed": photo, "count": String(count)], context: context)
    }

    static func serve(_ request: Request, _ context: WebContext, web: Web, drafts: Drafts, thumbnail: Bool) throws
        -> Response
    {
        let user = try context.requireUser()
        guard let photo = request.parameters["photo"], PhotoFiles.isValidID(photo),
            let storedType = try drafts.store.ownedPhotoType(localID: photo, userID: user.id)
        else {
            return web.errorPage(
                status: 404, titleKey: "photos.notFoundTitle", messageKey: "photos.errors.notFound", context: context)
        }
        let path = thumbnail ? drafts.files.thumbnailPath(photo) : drafts.files.originalPath(photo)
        let type = thumbnail ? "image/jpeg" : storedType
        // Only the three image types ever leave here, whatever the row says.
        guard ["image/jpeg", "image/png", "image/webp"].contains(type), let size = drafts.files.size(of: path) else {
            return web.errorPage(
                status: 404, titleKey: "photos.notFoundTitle", messageKey: "photos.errors.notFound", context: context)
        }
        var response = Response(
            status: 200, headers: Headers([("Content-Type", type)]), body: .file(path: path, size: size))
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("Content-Disposition", "inline")
        response.headers.add("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; sandbox")
        // Private: it is one user's. no-cache: asked again at every use (a 304 when unchanged), so a
        // shared browser's history does not show it once the session is over.
        response.headers.add("Cache-Control", PhotoFiles.cacheControl)
        return context.finish(ConditionalFile.respond(to: request, with: response))
    }
}
