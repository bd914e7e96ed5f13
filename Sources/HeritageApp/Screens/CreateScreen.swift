import Basics
import FoundationEssentials
import HTTPServer
import Mustache

/// Report creation (CRE-01..11): camera preview, photo strip, map, Continue. The page resumes the
/// user's open draft or starts one; its photos go to the server as they are taken (`PhotoRoutes`).
enum CreateScreen {
    static func register(on group: inout RouteGroup<Web>, drafts: Drafts) {
        let web = group.gate
        group.route("GET", "/reports/new", access: .page) { request, context in
            let user = try context.requireUser()
            let now = WallClock.now()
            let (draft, isNew) = try drafts.open(userID: user.id, now: now)
            let notice = try drafts.expiryNotice(
                request, userID: user.id, isNew: isNew, now: now, messages: context.messages)
            return try page(web, context, drafts: drafts, draft: draft, expiryNotice: notice)
        }
        // Cancel (CRE-01): the draft and every photo file go; back to the list.
        group.route("POST", "/reports/new/cancel", access: .page) { _, context in
            try drafts.cancel(userID: try context.requireUser().id)
            return web.redirect("/reports", context: context)
        }
    }

    static func page(_ web: Web, _ context: WebContext, drafts: Drafts, draft: Draft, expiryNotice: String?) throws
        -> Response
    {
        let photos = try drafts.store.photos(reportID: draft.id)
        let data = PageData(
            draft: draft.localID, owner: draft.userID, photos: photos.map(PhotoData.init),
            maxPhotos: Draft.maximumPhotos, maxFileBytes: drafts.options.maxFileBytes,
            retentionSeconds: drafts.options.retentionSeconds, tileURL: drafts.options.mapTileURL,
            messages: clientMessages(context.messages))
        var values = PhotoStrip.values(photos, draft: draft, back: "/reports/new", context: context)
        values["header"] = ["cancel": "/reports/new/cancel"]
        values["draftID"] = .string(draft.localID)
        values["draftJSON"] = .string(ScriptJSON.encode(data))
        values["photoCount"] = .int(photos.count)
        values["full"] = .bool(photos.count >= Draft.maximumPhotos)
        values["expiryNotice"] = MustacheValue(expiryNotice)
        return try web.render("create", title: context.messages["create.title"], values, context: context)
    }

    struct PageData: Encodable {
        var draft: String
        /// Whose draft: photos held in the browser for a wireless network (SET-03) are kept per user, so
        /// that on a shared device one user's page never drops another's.
        var owner: Int64
        var photos: [PhotoData]
        var maxPhotos: Int
        var maxFileBytes: Int
        /// Held photos older than this belong to a draft the sweep has removed: the page drops them.
        var retentionSeconds: Int
        var tileURL: String
        var messages: [String: String]
    }

    struct PhotoData: Encodable {
        var id: String
        var thumb: String
        var latitude: Double?
        var longitude: Double?

        init(_ photo: DraftPhoto) {
            id = photo.localID
            thumb = "/photos/\(photo.localID)/thumb"
            latitude = photo.latitude
            longitude = photo.longitude
        }
    }

    /// The words Public/js/create/ shows (the page's language).
    static func clientMessages(_ messages: Messages) -> [String: String] {
        let keys = [
            "create.cameraUnavailable", "create.cameraStarting", "create.locating", "create.gpsAlert", "create.gpsNone",
            "create.cellularWaiting", "create.heldOne", "create.heldMany", "create.heldLeave", "create.heldPhoto",
            "create.heldAdoptedOne", "create.heldAdoptedMany", "create.heldForNext", "create.heldNotKept",
            "create.uploading", "create.uploaded", "create.youAreHere", "create.photoMarker",
            "photos.remove", "photos.photoAlt", "photos.removed", "photos.errors.full", "photos.errors.tooLarge",
            "photos.errors.notImage", "photos.errors.failed", "photos.errors.noFix",
        ]
        var out: [String: String] = [:]
        for key in keys { out[key] = messages[key] }
        return out
    }
}

/// The photo row of both pages: thumbnails with their X (CRE-08, SUB-04), as forms that work without
/// JavaScript (the scripts turn them into fetch calls).
enum PhotoStrip {
    static func values(_ photos: [DraftPhoto], draft: Draft, back: String, context: WebContext) -> [String:
        MustacheValue]
    {
        let items: [MustacheValue] = photos.enumerated().map { index, photo in
            let number = index + 1
            return [
                "id": .string(photo.localID), "thumb": .string("/photos/\(photo.localID)/thumb"),
                "alt": .string(context.messages.format("photos.photoAlt", ["n": String(number)])),
                "removeLabel": .string(context.messages.format("photos.remove", ["n": String(number)])),
                "latitude": MustacheValue(photo.latitude), "longitude": MustacheValue(photo.longitude),
                "deleteAction": .string("/api/drafts/\(draft.localID)/photos/\(photo.localID)/delete"),
            ]
        }
        return ["photos": .array(items), "back": .string(back), "hasPhotos": .bool(!photos.isEmpty)]
    }
}
