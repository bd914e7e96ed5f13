import Basics
import HTTPServer
import Mustache

/// Triage (REV-13): a report's page with `triage=1` clears the waiting reports one decision at a time.
/// After each decision the server sends the coordinator to the next report waiting for one, in the
/// order of the dashboard's filter carried in the address, with an Undo of the decision for
/// `ReviewAction.undoWindowSeconds`; `/review/triage` finds that next report, or says that nothing waits.
enum ReviewTriage {
    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/triage") { request, context, user, _ in
            let query = ReviewQuery(request.query)
            let from = try request.queryValue("from").flatMap { Int64($0) }.flatMap { try review.store.row(id: $0) }
            let undo = UndoMark(request.query)
            if let next = try next(review.store, query: query, after: from, actor: user.email, now: WallClock.now()) {
                return review.web.redirect(link(next.id, query: query, undo: undo), context: context)
            }
            let suffix = query.queryString.isEmpty ? "" : "?" + query.queryString
            let values: [String: MustacheValue] = [
                "dashboard": .string("/review" + suffix),
                "undo": try undoValue(review, undo, query: query, user: user, messages: context.messages),
            ]
            return try review.web.render(
                "review-triage", title: context.messages["review.triage.emptyTitle"], values, context: context)
        }
    }

    /// The waiting reports of a filter: received, whatever review state the filter names, out of the trash.
    static func waiting(_ filter: ReviewFilter) -> ReviewFilter {
        var waiting = filter
        waiting.review = .received
        waiting.trash = false
        return waiting
    }

    /// The next report waiting for a decision in the filter's order after `current` (from the first
    /// when nil), wrapping around to the first so that a report skipped earlier comes back; never
    /// `current` itself, nor a report another coordinator has claimed (they could not decide it).
    static func next(
        _ store: any ReviewStore, query: ReviewQuery, after current: ReviewRow?, actor: String, now: Double
    ) throws -> ReviewRow? {
        let filter = waiting(query.filter)
        func first(after start: ReviewCursor?) throws -> ReviewRow? {
            var cursor = start
            while true {
                let rows = try store.search(filter, after: cursor, limit: 100)
                if let found = rows.first(where: { $0.id != current?.id && !claimedByOther($0, actor, now) }) {
                    return found
                }
                guard rows.count == 100, let last = rows.last else { return nil }
                cursor = ReviewCursor(key: last.cursorKey(filter.sort), id: last.id)
            }
        }
        if let current, let found = try first(after: ReviewCursor(key: current.cursorKey(filter.sort), id: current.id))
        {
            return found
        }
        return try first(after: nil)
    }

    static func claimedByOther(_ row: ReviewRow, _ actor: String, _ now: Double) -> Bool {
        (row.claimedUntil ?? 0) > now && row.claimedBy.map { $0.lowercased() != actor.lowercased() } == true
    }

    /// How many reports of the filter wait, for the triage page's heading.
    static func waitingCount(_ store: any ReviewStore, query: ReviewQuery) throws -> Int {
        try store.count(waiting(query.filter), atMost: ReviewDashboard.countLimit + 1)
    }

    /// A report's page in triage, the filter and the decision to offer to undo in its address.
    static func link(_ id: Int64, query: ReviewQuery, undo: UndoMark?) -> String {
        var parts = ["triage=1"]
        if !query.queryString.isEmpty { parts.append(query.queryString) }
        if let undo { parts.append("undo=\(undo.id)&did=\(undo.action.rawValue)") }
        return "/review/reports/\(id)?" + parts.joined(separator: "&")
    }

    /// Where a triage decision on `id` leads: the next waiting report, or the page that says none waits.
    static func afterDecision(
        _ review: Review, query: ReviewQuery, id: Int64, action: ReviewAction, actor: String
    ) throws
        -> String
    {
        let undo = UndoMark(id: id, action: action)
        let current = try review.store.row(id: id)
        if let next = try next(review.store, query: query, after: current, actor: actor, now: WallClock.now()) {
            return link(next.id, query: query, undo: undo)
        }
        let pairs = query.queryString.isEmpty ? [] : [query.queryString]
        return "/review/triage?" + (pairs + ["undo=\(id)&did=\(action.rawValue)"]).joined(separator: "&")
    }

    /// The decision a page offers to undo (`undo=ID&did=ACTION` in its address): one of triage's.
    struct UndoMark: Sendable, Equatable {
        var id: Int64
        var action: ReviewAction

        init(id: Int64, action: ReviewAction) {
            self.id = id
            self.action = action
        }

        init?(_ pairs: [(name: String, value: String)]) {
            guard let id = pairs.first(where: { $0.name == "undo" }).flatMap({ Int64($0.value) }),
                let action = pairs.first(where: { $0.name == "did" }).flatMap({ ReviewAction(rawValue: $0.value) }),
                ReviewAction.triageDecisions.contains(action)
            else { return nil }
            self.init(id: id, action: action)
        }
    }

    /// The Undo form's values, only while the server would still take the decision back: the report's
    /// latest audit row is this coordinator's decision, at most `ReviewAction.undoWindowSeconds` old. A reload
    /// after that shows no button that would only be refused.
    static func undoValue(
        _ review: Review, _ mark: UndoMark?, query: ReviewQuery, user: WebUser, messages: Messages
    ) throws -> MustacheValue {
        guard let mark, let row = try review.store.row(id: mark.id),
            let last = try review.store.audit(AuditFilter(reportID: mark.id), beforeID: nil, limit: 1).first,
            last.action == mark.action.rawValue, last.actor.lowercased() == user.email.lowercased()
        else { return .null }
        let left = ReviewAction.undoWindowSeconds - (WallClock.now() - last.at)
        guard left > 0 else { return .null }
        return [
            "id": .string(String(mark.id)), "action": .string(mark.action.rawValue),
            "text": .string(
                messages.format(
                    "review.triage.decided",
                    [
                        "action": messages[mark.action.labelKey], "id": String(mark.id),
                        "name": row.name.flatMap { $0.isEmpty ? nil : $0 } ?? messages["list.noName"],
                    ])),
            "seconds": .int(max(1, Int(left.rounded(.up)))),
            "hidden": .array(
                (query.pairs + [("triage", "1")]).map { ["name": .string($0.0), "value": .string($0.1)] }),
        ]
    }
}
