import Basics
import HTTPServer
import Mustache

/// The signed-in user's notifications (the review's questions and decisions on their reports), newest
/// first, unread ones marked: the same events mail would carry, whether mail is configured or not.
/// Plain links, no JavaScript: opening one marks it read and goes to what it is about.
enum NotificationsScreen {
    static func register(on router: inout Router, web: Web) {
        router.web("GET", "/notifications", web, access: .page) { _, context in
            let user = try context.requireUser()
            let rows = try web.stores.notifications.notifications(userID: user.id, limit: 100)
            let items: [MustacheValue] = rows.map { row in
                [
                    "id": .string(String(row.id)), "unread": .bool(!row.isRead),
                    "text": .string(text(row, context.messages)),
                    "detail": row.kind == "needs_info" ? MustacheValue(row.detail) : .null,
                    "iso": .string(ISO8601.utc(seconds: row.createdAt)),
                    "when": .string(BrowserName.utcMinute(row.createdAt)),
                ]
            }
            return try web.render(
                "notifications", title: context.messages["notifications.title"],
                ["items": .array(items), "hasItems": .bool(!items.isEmpty)],
                context: context)
        }
        router.web("GET", "/notifications/:id", web, access: .page) { request, context in
            let user = try context.requireUser()
            guard let id = request.parameters["id"].flatMap({ Int64($0) }),
                let row = try web.stores.notifications.markRead(id: id, userID: user.id, now: WallClock.now())
            else { throw HTTPError(404) }
            if row.kind == "needs_info", let localID = row.reportLocalID {
                return web.redirect("/reports/\(localID)/reply", context: context)
            }
            return web.redirect("/reports", context: context)
        }
    }

    /// One line of a notice, in the page's language; a rejection shows its public reason, never a note.
    static func text(_ row: NotificationRow, _ messages: Messages) -> String {
        let title = row.reportTitle ?? ""
        switch row.kind {
        case "needs_info": return messages.format("notifications.needsInfo", ["title": title])
        case "approved": return messages.format("notifications.approved", ["title": title])
        default:
            let reason = row.detail.map { messages["review.reason.\($0)"] } ?? ""
            return messages.format("notifications.rejected", ["title": title, "reason": reason])
        }
    }
}
