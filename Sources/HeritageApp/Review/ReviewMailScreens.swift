import Basics
import HTTPServer
import Mustache

/// The review's mail pages: `/review/settings`, where each coordinator chooses what the review tells
/// them by mail (NOT-02), and `/review/mail` (administrators), the messages the mail server refused for
/// good, each with a retry button (NOT-04). Plain forms, no JavaScript.
enum ReviewMailScreens {
    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/settings") { request, context, user, role in
            let saved = request.queryValue("saved").map { _ in context.messages["coordinatorMail.saved"] }
            let choice = try review.web.stores.coordinatorMail.coordinatorChoice(userID: user.id)
            return try settingsPage(review, context, choice, isAdmin: role == .admin, notice: saved)
        }
        group.route("POST", "/settings", options: RouteOptions(maxBodyBytes: 4096)) {
            request, context, user, role in
            let messages = context.messages
            let mode = CoordinatorChoice.Mode(rawValue: request.formValue("mode") ?? "")
            let hourText = Text.trimmed(request.formValue("hour") ?? "")
            let zoneText = Text.trimmed(String((request.formValue("time_zone") ?? "").prefix(64)))
            var choice = CoordinatorChoice(
                mode: mode ?? .none, digestHour: Int(hourText) ?? 8, timeZone: zoneText.isEmpty ? "UTC" : zoneText)
            let error: String? =
                if mode == nil {
                    messages["coordinatorMail.badChoice"]
                } else if !(0...23).contains(Int(hourText) ?? -1) {
                    messages["coordinatorMail.badHour"]
                } else if ZoneOffsets(name: choice.timeZone) == nil {
                    messages["coordinatorMail.badTimeZone"]
                } else { nil }
            if let error {
                choice.timeZone = zoneText
                return try settingsPage(review, context, choice, isAdmin: role == .admin, notice: error, status: 422)
            }
            let store = review.web.stores.coordinatorMail
            try store.saveCoordinatorChoice(choice, userID: user.id, now: WallClock.now())
            if role == .admin {
                try store.saveAdminNote(request.formValue("admin_note") == "1", userID: user.id)
            }
            return review.web.redirect("/review/settings?saved=1", context: context)
        }
        group.route("GET", "/mail", role: .admin) { request, context, _, _ in
            let notice = request.queryValue("retried").map { _ in context.messages["failedMail.retried"] }
            return try failedPage(review, context, notice: notice)
        }
        group.route("POST", "/mail/:id/retry", role: .admin, options: RouteOptions(maxBodyBytes: 1024)) {
            request, context, _, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }) else { throw HTTPError(404) }
            guard try review.web.stores.coordinatorMail.retryFailed(id: id, now: WallClock.now()) else {
                return try failedPage(review, context, notice: context.messages["failedMail.gone"], status: 409)
            }
            return review.web.redirect("/review/mail?retried=1", context: context)
        }
    }

    static func settingsPage(
        _ review: Review, _ context: WebContext, _ choice: CoordinatorChoice, isAdmin: Bool, notice: String?,
        status: Int = 200
    ) throws -> Response {
        let messages = context.messages
        let labels: [CoordinatorChoice.Mode: String] = [
            .none: "none", .eachKiosk: "eachKiosk", .eachAll: "eachAll", .hourly: "hourly", .daily: "daily",
        ]
        let modes: [MustacheValue] = CoordinatorChoice.Mode.allCases.map { mode in
            [
                "value": .string(mode.rawValue), "label": .string(messages["coordinatorMail." + (labels[mode] ?? "")]),
                "checked": .bool(mode == choice.mode),
            ]
        }
        let hours: [MustacheValue] = (0...23).map { hour in
            [
                "value": .string(String(hour)), "label": .string(hour < 10 ? "0\(hour):00" : "\(hour):00"),
                "selected": .bool(hour == choice.digestHour),
            ]
        }
        let values: [String: MustacheValue] = [
            "modes": .array(modes), "hours": .array(hours), "timeZone": .string(choice.timeZone),
            "capHint": .string(
                messages.format("coordinatorMail.capHint", ["n": String(review.settings.mailImmediatePerHour)])),
            "isAdmin": .bool(isAdmin),
            "adminNote": .bool(
                isAdmin ? try review.web.stores.coordinatorMail.wantsAdminNote(userID: context.requireUser().id) : false
            ),
            "mailOff": .bool(!review.settings.mailConfigured), "notice": MustacheValue(notice),
            "isError": .bool(status != 200),
        ]
        return try review.web.render(
            "review-settings", title: messages["coordinatorMail.title"], values, context: context, status: status)
    }

    static func failedPage(_ review: Review, _ context: WebContext, notice: String?, status: Int = 200) throws
        -> Response
    {
        let messages = context.messages
        let rows: [MustacheValue] = try review.web.stores.coordinatorMail.failedMail(limit: 200).map { row in
            [
                "id": .string(String(row.id)), "email": .string(row.email),
                "kind": .string(messages["failedMail.kinds.\(row.kind)"]),
                "at": ReviewLabels.time(row.createdAt), "attempts": .string(String(row.attempts)),
                "answer": .string(row.lastReply),
            ]
        }
        let values: [String: MustacheValue] = [
            "rows": .array(rows), "hasRows": .bool(!rows.isEmpty), "notice": MustacheValue(notice),
            "mailOff": .bool(!review.settings.mailConfigured),
        ]
        return try review.web.render(
            "review-mail", title: messages["failedMail.title"], values, context: context, status: status)
    }
}
