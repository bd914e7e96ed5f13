import Basics
import HTTPServer
import Mustache

/// The app shell the service worker keeps (OFF-01): the creation, submission and list pages as they
/// work on the device alone, with none of the user's data in them (a device shared by two volunteers
/// keeps one shell for both; each one's reports come from the device's outbox, per user). The worker
/// answers `/reports/new`, `/reports/new/submit` and `/reports` with these when the server cannot be
/// reached. `/api/device/session` tells a page which user is signed in, and gives it the CSRF token
/// that sending the outbox needs.
enum DeviceShellScreen {
    static let modes = ["new": "create.title", "submit": "submit.title", "list": "list.title"]

    /// `maxFileBytes`: the drafts' photo size limit, which the shell applies when a photo is taken, as
    /// the creation page does (with the 20 photos of a report), so that a report made offline is never
    /// one the server will refuse for good.
    static func register(on group: inout RouteGroup<Web>, maxFileBytes: Int) {
        let web = group.gate
        group.route("GET", "/app-shell/:mode", access: .page) { request, context in
            guard let mode = request.parameters["mode"], let titleKey = modes[mode] else {
                return web.errorPage(
                    status: 404, titleKey: "photos.notFoundTitle", messageKey: "errors.notFound", context: context)
            }
            let values: [String: MustacheValue] = [
                "mode": .string(mode), "isNew": .bool(mode == "new"), "isSubmit": .bool(mode == "submit"),
                "isList": .bool(mode == "list"), "selects": SubmitForm().selectValues(context.messages),
                "maxName": .int(SubmitForm.maximumNameLength),

                "shellJSON": .string(
                    ScriptJSON.encode(
                        clientMessages(context.messages).merging([
                            "limits.maxPhotos": String(Draft.maximumPhotos),
                            "limits.maxFileBytes": String(maxFileBytes),
                        ]) { $1 })),
                // Kept for every user of the device: not whom it was made for (`Web.render`'s `pageUser`).
                "pageUser": .bool(false),
            ]
            return try web.render(
                "device", title: context.messages[titleKey], values, context: context, modules: ["device-shell"])
        }
        group.route("GET", "/api/device/session", access: .api) { _, context in
            let user = try context.requireUser()
            return web.json(Session(user: String(user.id), csrf: context.csrfToken), context: context)
        }
    }

    struct Session: Encodable {
        var user: String
        var csrf: String
    }

    /// The words the outbox's scripts show (the page's language).
    static func clientMessages(_ messages: Messages) -> [String: String] {
        var out: [String: String] = [:]
        for key in outboxKeys { out[key] = messages["outbox.\(key)"] }
        for key in [
            "photos.photoAlt", "photos.remove", "submit.errors.noPhotos", "submit.errors.nameEmpty",
            "photos.errors.full",
            "photos.errors.tooLarge",
        ] {
            out[key] = messages[key]
        }
        return out
    }

    static let outboxKeys = [
        "waiting", "sending", "photoCount", "delete", "deleteAsk", "saved", "quota", "writeFailed", "signIn",
        "offlineNote", "noPhotos", "cameraUnavailable", "sendNow", "kept", "keptNone", "deleteAll", "deleteAllAsk",
        "signOutAsk",
    ]
}
