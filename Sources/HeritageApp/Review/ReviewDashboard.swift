import Basics
import FoundationEssentials
import HTTPServer
import Mustache

/// `/review` (REV-05): the counts of what needs attention, the filtered table with keyset paging, and
/// the bulk form (REV-07) over ticked rows or every report matching the filter.
enum ReviewDashboard {
    static let pageSize = 50
    /// The dashboard counts the matching reports up to this.
    static let countLimit = 10_000
    /// The most reports one bulk action takes ("all matching" beyond this: narrow the filter).
    static let bulkLimit = 20_000

    /// Up to `bulkLimit` ticked ids besides the filter's and the form's own fields.
    static let bulkOptions = RouteOptions(maxBodyBytes: 4 * 1024 * 1024, maxFields: bulkLimit + 100)

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "") { request, context, _, role in
            try page(review, context, query: ReviewQuery(request.query), role: role)
        }
        group.routeOnPool("POST", "/bulk", options: bulkOptions) {
            request, context, user, _ in
            try bulk(review, request, context, user: user)
        }
        group.routeOnPool("POST", "/bulk/undo", options: bulkOptions) {
            request, context, user, _ in
            try undo(review, request, context, user: user)
        }
    }

    static func page(_ review: Review, _ context: WebContext, query: ReviewQuery, role: Role) throws -> Response {
        let store = review.store
        let counts = try store.counts(now: WallClock.now())
        let rows = try store.search(query.filter, after: query.cursor, limit: pageSize + 1)
        // Counted up to a bound: past it the page says "more than", and a bulk on all counts exactly.
        let total = try store.count(query.filter, atMost: countLimit + 1)
        let shown = rows.prefix(pageSize)
        var next: String?
        if rows.count > pageSize, let last = shown.last {
            let after = "after=" + ReviewQuery.percentEncoded(last.cursorKey(query.filter.sort) + "~\(last.id)")
            next = "/review?" + [query.queryString, after].filter { !$0.isEmpty }.joined(separator: "&")
        }
        let messages = context.messages
        let filterString = query.queryString
        let values: [String: MustacheValue] = [
            "tabs": ReviewQueue.tabs(counts, query: query, messages: messages),
            "oldestWaiting": MustacheValue(try ReviewQueue.oldestWaiting(store)),
            "moreOpen": .bool(ReviewQueue.moreCount(query) > 0),
            "moreCount": ReviewQueue.moreCount(query) > 0 ? .int(ReviewQueue.moreCount(query)) : .null,
            "clearBounds": MustacheValue(ReviewQueue.withoutBounds(query)),
            "filterCount": ReviewQueue.filterCount(query) > 0 ? .int(ReviewQueue.filterCount(query)) : .null,
            "rows": .array(shown.map { ReviewPresentation.row($0, messages: messages) }),
            "total": .string(
                total > countLimit
                    ? messages.format("review.matchingMore", ["count": String(countLimit)])
                    : messages.format("review.matching", ["count": String(total)])),
            "totalCount": .string(total > countLimit ? "\(countLimit)+" : String(total)),
            "next": MustacheValue(next),
            "first": MustacheValue(query.cursor == nil ? nil : "/review?" + filterString),
            "query": .string(filterString),
            "hidden": query.hiddenFields,
            "filter": [
                "need": MustacheValue(query.filter.need?.rawValue),
                "reporter": .string(query.filter.reporter), "q": .string(query.filter.text),
                "from": .string(query.fromText), "to": .string(query.toText), "bounds": .string(query.boundsText),
                "failure": .bool(query.filter.hasFailure), "trash": .bool(query.filter.trash),
            ],
            "reviewOptions": options(
                ReviewState.allCases.map(\.rawValue), selected: query.filter.review?.rawValue, prefix: "review.state.",
                messages),
            "deliveryOptions": options(
                ReportState.allCases.filter { $0 != .draft }.map(\.rawValue), selected: query.filter.delivery?.rawValue,
                prefix: "review.delivery.", messages),
            "originOptions": options(
                ReportOrigin.allCases.map(\.rawValue), selected: query.filter.origin?.rawValue,
                prefix: "review.origin.",
                messages),
            "sortOptions": options(
                ReviewFilter.Sort.allCases.map(\.rawValue), selected: query.filter.sort.rawValue,
                prefix: "review.sort.",
                messages),
            "actionOptions": options(
                ReviewAction.bulk.map(\.rawValue), selected: nil, prefix: ReviewAction.labelKey(""), messages),
            "reasonOptions": options(
                RejectReason.allCases.map(\.rawValue), selected: nil, prefix: "review.reason.", messages),
            "isAdmin": .bool(role >= .admin),
            "backupOverdue": BackupNotice.value(
                review.settings.backups, role: role, messages: messages, now: WallClock.now()),
            "mapSource": .string("/review/map.geojson?" + filterString),
            "tiles": .string(review.settings.mapTileURL),
            "reportQuery": .string(filterString.isEmpty ? "" : "?" + filterString),
            "policy": .string(messages["review.policy.\(review.settings.policy.rawValue)"]),
        ]
        return try review.web.render(
            "review", title: messages["review.title"], values, context: context)
    }

    /// `<option>`s with their labels from the catalogue.
    static func options(_ codes: [String], selected: String?, prefix: String, _ messages: Messages) -> MustacheValue {
        .array(
            codes.map { code in
                [
                    "value": .string(code), "label": .string(messages[prefix + code]),
                    "selected": .bool(code == selected),
                ]
            })
    }

    /// A bulk action: ticked rows (`ids`) or `scope=all` (every report matching the filter in the hidden
    /// fields). The first post shows the exact count and asks to confirm; the confirmed one (`confirm=N`,
    /// the same count) is done report by report and answered with each one's result.
    static func bulk(_ review: Review, _ request: Request, _ context: WebContext, user: WebUser) throws -> Response {
        let messages = context.messages
        let query = ReviewQuery(request.formFields)
        guard let action = ReviewAction(rawValue: request.formValue("action") ?? ""), action.isBulk else {
            return review.web.errorPage(
                status: 400, titleKey: "errors.badRequestTitle", messageKey: "review.errors.noAction", context: context)
        }
        var ids: [Int64]
        // "All matching" acts on the reports the coordinator was asked about (REV-07): the question
        // carries their ids (`snapshot`), and a report that entered the filter since is left alone.
        var newcomers: [Int64] = []
        if request.formValue("scope") == "all" {
            let matching = try ReviewBulk.matching(review.store, query.filter, limit: bulkLimit)
            ids = matching
            if let snapshot = request.formValue("snapshot").flatMap(ReviewBulk.decodeSnapshot) {
                let asked = Set(snapshot)
                newcomers = matching.filter { !asked.contains($0) }
                ids = snapshot
            } else if request.formValue("confirm") != nil {
                ids = []
            }
        } else {
            guard let ticked = tickedIDs(request) else { return tooMany(review, context) }
            ids = ticked
        }
        guard !ids.isEmpty || !newcomers.isEmpty || request.formValue("confirm") != nil else {
            return review.web.errorPage(
                status: 400, titleKey: "errors.badRequestTitle", messageKey: "review.errors.noneSelected",
                context: context)
        }
        let reason = RejectReason(rawValue: request.formValue("reason") ?? "")?.rawValue
        if action == .reject && reason == nil {
            return review.web.errorPage(
                status: 422, titleKey: "errors.badRequestTitle", messageKey: "review.errors.reason", context: context)
        }
        let message = Text.trimmed(String((request.formValue("message") ?? "").prefix(2000)))
        let confirmed = !ids.isEmpty && Int(request.formValue("confirm") ?? "") == ids.count
        let actionLabel = messages[action.labelKey]
        guard confirmed else {
            if ids.isEmpty { ids = try ReviewBulk.matching(review.store, query.filter, limit: bulkLimit) }
            guard !ids.isEmpty else {
                return review.web.errorPage(
                    status: 400, titleKey: "errors.badRequestTitle", messageKey: "review.errors.noneSelected",
                    context: context)
            }
            let values: [String: MustacheValue] = [
                "question": .string(
                    messages.format("review.bulk.confirm", ["action": actionLabel, "count": String(ids.count)])),
                "count": .int(ids.count), "action": .string(action.rawValue), "reason": MustacheValue(reason),
                "message": .string(message), "scope": .string(request.formValue("scope") ?? "selected"),
                "ids": .array(request.formValue("scope") == "all" ? [] : ids.map { .string(String($0)) }),
                "snapshot": MustacheValue(request.formValue("scope") == "all" ? ReviewBulk.encodeSnapshot(ids) : nil),
                "hidden": query.hiddenFields, "query": .string(query.queryString),
            ]
            return try review.web.render(
                "review-bulk", title: messages["review.bulk.title"], values, context: context)
        }
        let results =
            try ReviewBulk.run(
                review, action: action, ids: ids, actor: user.email, reason: reason, message: message,
                now: WallClock.now())
            + newcomers.map { ReviewBulk.Result(id: $0, outcome: .notApplicable(state: "snapshot")) }
        let done = results.filter { $0.done }.count
        let undoable = action.isUndoable && done > 0
        let values: [String: MustacheValue] = [
            "undo": undoable
                ? [
                    "action": .string(action.rawValue),
                    "ids": .array(results.filter(\.done).map { .string(String($0.id)) }),
                    "seconds": .int(Int(ReviewAction.undoWindowSeconds)),
                ] : .null,
            "summary": .string(
                messages.format(
                    "review.bulk.summary",
                    ["action": actionLabel, "done": String(done), "skipped": String(results.count - done)])),
            "results": .array(
                results.map { result in
                    [
                        "id": .string(String(result.id)), "done": .bool(result.done),
                        "text": .string(ReviewPresentation.outcome(result.outcome, messages: messages)),
                    ]
                }),
            "query": .string(query.queryString), "hidden": .array([]), "question": .null,
        ]
        return try review.web.render("review-bulk", title: messages["review.bulk.title"], values, context: context)
    }
}

extension ReviewDashboard {
    /// The ticked reports (`ids` fields), each once, in order; nil when there are more fields than a
    /// bulk action takes (`bulkLimit`, as for "all matching"): a 4 MiB form holds some 500,000.
    static func tickedIDs(_ request: Request) -> [Int64]? {
        let fields = request.formFields.filter { $0.name == "ids" }
        guard fields.count <= bulkLimit else { return nil }
        return Array(Set(fields.compactMap { Int64($0.value) })).sorted()
    }

    static func tooMany(_ review: Review, _ context: WebContext) -> Response {
        review.web.errorPage(
            status: 413, titleKey: "errors.badRequestTitle", messageKey: "review.errors.tooMany", context: context)
    }

    /// Undo of a bulk decision, within `ReviewAction.undoWindowSeconds` of it: each report whose latest audit row
    /// is this user's `action`, that recent, goes back to the state before it (a compare-and-set from the
    /// state after it, audited as `undo`). The window is judged on the audit log's time, not the form's.
    static func undo(_ review: Review, _ request: Request, _ context: WebContext, user: WebUser) throws -> Response {
        let messages = context.messages
        guard let action = ReviewAction(rawValue: request.formValue("action") ?? ""), action.isUndoable else {
            return review.web.errorPage(
                status: 400, titleKey: "errors.badRequestTitle", messageKey: "review.errors.noAction", context: context)
        }
        guard let ids = tickedIDs(request) else { return tooMany(review, context) }
        let now = WallClock.now()
        var results: [ReviewBulk.Result] = []
        for id in ids {
            let outcome = try ReviewActions.undo(review, action: action, id: id, actor: user.email, now: now)
            results.append(ReviewBulk.Result(id: id, outcome: outcome))
        }
        let done = results.filter(\.done).count
        let values: [String: MustacheValue] = [
            "summary": .string(
                messages.format(
                    "review.bulk.summary",
                    [
                        "action": messages[ReviewAction.undo.labelKey], "done": String(done),
                        "skipped": String(results.count - done),
                    ])),
            "results": .array(
                results.map { result in
                    [
                        "id": .string(String(result.id)), "done": .bool(result.done),
                        "text": .string(ReviewPresentation.outcome(result.outcome, messages: messages)),
                    ]
                }),
            "query": .string(""), "hidden": .array([]), "question": .null, "undo": .null,
        ]
        return try review.web.render("review-bulk", title: messages["review.bulk.title"], values, context: context)
    }
}

/// Bulk actions, done on the server one report at a time, each its own compare-and-set.
enum ReviewBulk {
    struct Result: Sendable {
        var id: Int64
        var outcome: ReviewOutcome
        var done: Bool { outcome == .done }
    }

    /// The ids a confirmation of "all matching" carries: sorted, as runs (`1-40,42,50-61`), so that
    /// 20,000 ids of a filter take a few bytes when they follow one another and at most ~140 KB when not.
    static func encodeSnapshot(_ ids: [Int64]) -> String {
        var runs: [(first: Int64, last: Int64)] = []
        for id in ids.sorted() {
            if let run = runs.last, id == run.last + 1 {
                runs[runs.count - 1].last = id
            } else if runs.last?.last != id {
                runs.append((id, id))
            }
        }
        return runs.map { $0.first == $0.last ? "\($0.first)" : "\($0.first)-\($0.last)" }.joined(separator: ",")
    }

    /// The ids of `encodeSnapshot`'s text; nil when it is not one, or names more than a bulk action takes.
    static func decodeSnapshot(_ text: String) -> [Int64]? {
        var ids: [Int64] = []
        for run in text.split(separator: ",") {
            let ends = run.split(separator: "-", omittingEmptySubsequences: false).map { Int64($0) }
            guard let first = ends.first ?? nil, ends.count <= 2 else { return nil }
            let last = ends.count == 2 ? ends[1] : first
            guard let last, last >= first, last - first < Int64(ReviewDashboard.bulkLimit) else { return nil }
            ids += first...last
            if ids.count > ReviewDashboard.bulkLimit { return nil }
        }
        return ids.isEmpty ? nil : ids
    }

    /// The ids of every report matching the filter (keyset pages of 1,000), at most `limit`.
    static func matching(_ store: any ReviewStore, _ filter: ReviewFilter, limit: Int) throws -> [Int64] {
        var ids: [Int64] = []
        var cursor: ReviewCursor?
        while ids.count < limit {
            let wanted = min(1000, limit - ids.count)
            let rows = try store.search(filter, after: cursor, limit: wanted)
            ids += rows.map(\.id)
            guard rows.count == wanted, let last = rows.last else { break }
            cursor = ReviewCursor(key: last.cursorKey(filter.sort), id: last.id)
        }
        return ids
    }

    static func run(
        _ review: Review, action: ReviewAction, ids: [Int64], actor: String, reason: String?, message: String,
        now: Double
    ) throws -> [Result] {
        if let decision = action.decision(reason: reason, message: message.isEmpty ? nil : message) {
            let outcomes = try review.store.decideAll(decision, ids: ids, actor: actor, now: now)
            let results = zip(ids, outcomes).map { Result(id: $0, outcome: $1) }
            if action.wakesWorker, results.contains(where: \.done) { review.web.worker.reportDue() }
            return results
        }
        var results: [Result] = []
        // The trash is emptied of what has been there 30 days once for the whole bulk, not per report.
        if action == .discard { try ReviewActions.purge(review, now: now) }
        for id in ids {
            results.append(
                Result(
                    id: id,
                    outcome: action == .discard
                        ? try review.store.discard(id: id, actor: actor, now: now)
                        : try ReviewActions.perform(
                            review, action: action, id: id, actor: actor, reason: reason,
                            message: message.isEmpty ? nil : message, duplicateOf: nil, now: now)))
        }
        if action.wakesWorker, results.contains(where: \.done) { review.web.worker.reportDue() }
        return results
    }
}
