import Basics
import HTTPServer
import Mustache

/// The signed-in user's notifications (the review's questions and decisions on their reports), newest
/// first, unread ones marked: the same events mail would carry, whether mail is configured or not.
/// Plain links, no JavaScript: opening one marks it read and goes to what it is about.
enum NotificationsScreen {
    static func register(on group: inout RouteGroup<Web>) {
        let web = group.gate
        group.route("GET", "/notifications", access: .page) { _, context in
            let user = try context.requireUser()
            let rows = try web.stores.notifications.notifications(userID: user.id, limit: 100)
            let items: [MustacheValue] = rows.map { row in
                [
                    "id": .string(String(row.id)), "unread": .bool(!row.isRead),
                    "text": .string(text(row, context.messages)),
                    "detail": row.kind == MailKind.needsInfo.rawValue ? MustacheValue(row.detail) : .null,
                    "iso": .string(ISO8601.utc(seconds: row.createdAt)),
                    "when": .string(BrowserName.utcMinute(row.createdAt)),
                ]
            }
            return try web.render(
                "notifications", title: context.messages["notifications.title"],
                ["items": .array(items), "hasItems": .bool(!items.isEmpty)],
                context: context)
        }
        group.route("GET", "/notifications/:id", access: .page) { request, context in
            let user = try context.requireUser()
            guard let id = request.parameters["id"].flatMap({ Int64($0) }),
                let row = try web.stores.notifications.markRead(id: id, userID: user.id, now: WallClock.now())
            else { throw HTTPError(404) }
            return web.redirect(destination(of: row), context: context)
        }
    }

    /// What a notice is about: the answer form of a question, a claimed receipt's page, the review's
    /// dashboard filtered to what a coordinator's notice counts, else the reporter's list.
    static func destination(of row: NotificationRow) -> String {
        let kind = MailKind(rawValue: row.kind)
        switch kind {
        case .reportArrived, .digest: return "/review?review=received&sort=oldest"
        case .adminNote: return "/review?delivery=needs_attention"
        case .needsInfo, .approved, .rejected, nil:
            if let code = row.receiptCode { return "/r/\(code)" }
            if kind == .needsInfo, let localID = row.reportLocalID { return "/reports/\(localID)/reply" }
            return "/reports"
        }
    }

    /// One line of a notice, in the page's language; a rejection shows its public reason, never a note.
    static func text(_ row: NotificationRow, _ messages: Messages) -> String {
        let title = row.reportTitle ?? ""
        // A kind this version does not know reads as a rejection did before kinds were typed.
        let kind = MailKind(rawValue: row.kind) ?? .rejected
        switch kind {
        case .needsInfo, .approved, .reportArrived: return messages.format(kind.notificationKey, ["title": title])
        case .digest:
            let counts = DigestCounts(detail: row.detail ?? "")
            return messages.format(
                kind.notificationKey,
                [
                    "waiting": String(counts.waiting), "age": MailContent.age(counts.oldestAge, messages),
                    "replies": String(counts.replies), "failures": String(counts.failures),
                ])
        case .adminNote:
            let counts = DigestCounts.pairs(row.detail ?? "")
            return messages.format(
                kind.notificationKey,
                ["failures": String(counts["failures"] ?? 0), "kiosks": String(counts["kiosks"] ?? 0)])
        case .rejected:
            let reason = row.detail.map { messages["review.reason.\($0)"] } ?? ""
            return messages.format(kind.notificationKey, ["title": title, "reason": reason])
        }
    }
}
