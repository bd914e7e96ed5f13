import Basics
import HTTPServer
import Mustache

#if canImport(Glibc)
    import Glibc
#endif

/// `/review/reports/{id}` (REV-06): the photos large with each one's location, accuracy and time, the
/// fields, the reports within 250 m, the history (audit rows, delivery attempts); and its actions.
enum ReviewReportScreen {
    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/reports/:id") { request, context, user, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }), let row = try review.store.row(id: id)
            else { return notFound(review, context) }
            let notice = request.queryValue("done").map { _ in context.messages["review.outcome.done"] }
            return try page(
                review, context, row: row, user: user, notice: notice, status: 200, query: ReviewQuery(request.query),
                triage: request.queryValue("triage") == "1", undo: ReviewTriage.UndoMark(request.query))
        }
        group.route("POST", "/reports/:id/action", options: RouteOptions(maxBodyBytes: 65_536)) {
            request, context, user, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }) else { return notFound(review, context) }
            let posted = request.formValue("action") ?? ""
            let message = request.formValue("message").map { Text.trimmed(String($0.prefix(2000))) }
            let reason = RejectReason(rawValue: request.formValue("reason") ?? "")?.rawValue
            // One of the nearby reports picked, or another report's number typed.
            let duplicateOf = [request.formValue("duplicate_of"), request.formValue("duplicate_of_other")]
                .compactMap { $0.flatMap { Int64(Text.trimmed($0)) } }.first
            // The dashboard's filter rides along in hidden fields, for next and previous after the action.
            let query = ReviewQuery(request.formFields)
            let triage = request.formValue("triage") == "1"
            let outcome: ReviewOutcome
            switch ReviewAction(rawValue: posted) {
            case nil: outcome = .notApplicable(state: posted)
            case .undo:
                outcome =
                    try ReviewAction(rawValue: request.formValue("undo_of") ?? "").map {
                        try ReviewActions.undo(review, action: $0, id: id, actor: user.email, now: WallClock.now())
                    } ?? .notApplicable(state: posted)
            case let action?:
                outcome = try ReviewActions.perform(
                    review, action: action, id: id, actor: user.email, reason: reason,
                    message: (message?.isEmpty ?? true) ? nil : message, duplicateOf: duplicateOf, now: WallClock.now())
            }
            if outcome == .done, let action = ReviewAction(rawValue: posted) {
                if action.wakesWorker { review.web.worker.reportDue() }
                if triage, ReviewAction.triageDecisions.contains(action) {
                    let next = try ReviewTriage.afterDecision(
                        review, query: query, id: id, action: action, actor: user.email)
                    return review.web.redirect(next, context: context)
                }
                let back = (query.queryString.isEmpty ? "" : "&" + query.queryString) + (triage ? "&triage=1" : "")
                return review.web.redirect("/review/reports/\(id)?done=\(action.rawValue)" + back, context: context)
            }
            guard let row = try review.store.row(id: id) else { return notFound(review, context) }
            // Someone else was first, or the action does not apply: the page again, saying so.
            return try page(
                review, context, row: row, user: user,
                notice: ReviewPresentation.outcome(outcome, messages: context.messages), status: 409, isError: true,
                query: query, triage: triage)
        }
        group.route("GET", "/photos/:photo/thumb") { request, context, _, _ in
            photo(review, request, context, thumbnail: true)
        }
        group.route("GET", "/photos/:photo") { request, context, _, _ in
            photo(review, request, context, thumbnail: false)
        }
    }

    static func notFound(_ review: Review, _ context: WebContext) -> Response {
        review.web.errorPage(
            status: 404, titleKey: "httpErrors.404.title", messageKey: "httpErrors.404.message", context: context)
    }

    /// One row of the delivery attempts' table: the step and outcome in the reader's language.
    static func attemptRow(_ attempt: DeliveryAttempt, messages: Messages) -> MustacheValue {
        let step: String
        if attempt.step.hasPrefix("photo "), let n = Int(attempt.step.dropFirst(6)) {
            step = messages.format("review.deliveryAttempts.photo", ["n": String(n)])
        } else if ["create", "delete", "photos"].contains(attempt.step) {
            step = messages["review.deliveryAttempts.\(attempt.step)"]
        } else {
            step = attempt.step
        }
        return [
            "when": .string(ReviewPresentation.time(attempt.at)), "at": ReviewLabels.time(attempt.at),
            "step": .string(step),
            "outcome": .string(messages["review.deliveryAttempts.\(attempt.outcome.rawValue)"]),
            "outcomeKey": .string(attempt.outcome.rawValue),
            "status": MustacheValue(attempt.httpStatus.map { String($0) }), "error": MustacheValue(attempt.error),
        ]
    }

    static func page(
        _ review: Review, _ context: WebContext, row: ReviewRow, user: WebUser, notice: String?, status: Int,
        isError: Bool = false, query: ReviewQuery = ReviewQuery(), triage: Bool = false,
        undo: ReviewTriage.UndoMark? = nil
    ) throws -> Response {
        let messages = context.messages
        let photos = try review.store.photos(reportID: row.id)
        let nearby = try review.store.nearby(id: row.id, metres: 250, limit: 20)
        let history = try review.store.audit(AuditFilter(reportID: row.id), beforeID: nil, limit: 200)
        let attempts = try review.store.deliveryAttempts(reportID: row.id, limit: 50)
        let now = WallClock.now()
        let claimedByOther =
            (row.claimedUntil ?? 0) > now && row.claimedBy.map { $0.lowercased() != user.email.lowercased() } == true
        let claimedByMe =
            (row.claimedUntil ?? 0) > now && row.claimedBy.map { $0.lowercased() == user.email.lowercased() } == true
        func number(_ value: Double?, _ digits: Int) -> String {
            guard let value else { return "" }
            return ReviewPresentation.decimal(value, digits: digits)
        }
        // Each code by its label in the page's language (ReviewLabels); the time as `<time datetime>`.
        let fields: [(String, String?, Double?)] =
            [(messages["submit.fields.name"], row.name, nil)]
            + ReviewLabels.details(row, messages).map { ($0.label, $0.value, nil) } + [
                (messages["review.table.reporter"], row.reporter, nil),
                (messages["review.table.origin"], ReviewLabels.origin(row.origin, messages), nil),
                (messages["review.table.when"], ReviewLabels.utcText(row.submittedAt), row.submittedAt),
                (
                    messages["review.location"],
                    row.latitude.map { "\(number($0, 6)), \(number(row.longitude, 6))" }, nil
                ),
                (messages["review.accuracy"], row.accuracy.map { number($0, 0) + " m" }, nil),
                (messages["review.localID"], row.localID, nil),
                (messages["review.platformID"], row.platformReportID, nil),
            ]
        var values: [String: MustacheValue] = [
            "report": ReviewPresentation.row(row, messages: messages, now: now),
            "fields": .array(
                fields.compactMap { label, value, at in
                    guard let value, !value.isEmpty else { return nil }
                    return ["label": .string(label), "value": .string(value), "at": ReviewLabels.time(at)]
                }),
            "photos": .array(
                photos.enumerated().map { index, photo in
                    [
                        "src": .string("/review/photos/\(photo.localID)"),
                        "thumb": .string("/review/photos/\(photo.localID)/thumb"),
                        "alt": .string(messages.format("review.photoAlt", ["n": String(index + 1)])),
                        "open": .string(messages.format("review.viewer.open", ["n": String(index + 1)])),
                        "n": .string(String(index + 1)), "large": .bool(index == 0),
                        "location": MustacheValue(
                            photo.latitude.map { "\(number($0, 6)), \(number(photo.longitude, 6))" }),
                        "accuracy": MustacheValue(photo.accuracy.map { number($0, 0) + " m" }),
                        "time": MustacheValue(photo.capturedAt),
                    ]
                }),
            // Numbered: in triage, D then a digit marks the report a duplicate of that one.
            "nearby": .array(
                nearby.enumerated().map { index, other in
                    guard case .dictionary(var fields) = ReviewPresentation.row(other, messages: messages, now: now)
                    else { return .null }
                    fields["n"] = index < 9 ? .string(String(index + 1)) : .null
                    return .dictionary(fields)
                }),
            // The report's own position for the map, as `photoPoints` are: JSON numbers, or nothing.
            "place": MustacheValue(
                row.latitude.flatMap { latitude in
                    row.longitude.flatMap { longitude in
                        guard latitude.isFinite, longitude.isFinite else { return nil }
                        let accuracy = row.accuracy.flatMap { $0.isFinite ? String($0) : nil } ?? "null"
                        return "[\(latitude),\(longitude),\(accuracy)]"
                    }
                }),
            "photoPoints": MustacheValue(Self.photoPoints(photos)),
            "hasMap": .bool(Self.photoPoints(photos) != nil || (row.latitude != nil && row.longitude != nil)),
            "tiles": .string(review.settings.mapTileURL),
            "history": .array(
                history.map { entry in
                    [
                        "when": .string(ReviewPresentation.time(entry.at)), "at": ReviewLabels.time(entry.at),
                        "actor": .string(entry.actor),
                        "action": .string(messages[ReviewAction.labelKey(entry.action)]),
                        "change": .string(ReviewLabels.change(entry.before, entry.after, messages)),
                        "detail": MustacheValue(entry.detail),
                    ]
                }),
            "notice": MustacheValue(notice), "noticeError": .bool(isError),
            "claimedByOther": .bool(claimedByOther), "claimedByMe": .bool(claimedByMe),
            "claimUntil": .string(ReviewPresentation.time(row.claimedUntil)),
            "reasons": .array(
                RejectReason.allCases.enumerated().map { index, reason in
                    [
                        "value": .string(reason.rawValue), "n": .string(String(index + 1)),
                        "label": .string(messages["review.reason.\(reason.rawValue)"]),
                    ]
                }),
            "reviewMessage": MustacheValue(row.message),
            "reasonLabel": MustacheValue(row.reason.map { ReviewLabels.reason($0, messages) }),
            "duplicateOf": MustacheValue(row.duplicateOf.map { String($0) }),
            "attempts": MustacheValue(row.lastError),
            "deliveryAttempts": .array(attempts.map { Self.attemptRow($0, messages: messages) }),
            "hasAttempts": .bool(!attempts.isEmpty),
        ]
        // The next and previous report of the dashboard's filter and order (J and K), by keyset.
        let filterString = query.queryString
        let suffix = filterString.isEmpty ? "" : "?" + filterString
        let cursor = ReviewCursor(key: row.cursorKey(query.filter.sort), id: row.id)
        if let next = try review.store.search(query.filter, after: cursor, limit: 1).first {
            values["next"] = .string("/review/reports/\(next.id)" + suffix)
        }
        if query.filter.sort != .name {
            var reversed = query.filter
            reversed.sort = query.filter.sort == .newest ? .oldest : .newest
            if let previous = try review.store.search(reversed, after: cursor, limit: 1).first {
                values["previous"] = .string("/review/reports/\(previous.id)" + suffix)
            }
        }
        values["hidden"] = .array(
            (query.pairs + (triage ? [("triage", "1")] : [])).map { ["name": .string($0.0), "value": .string($0.1)] })
        if triage {
            // In triage "next" is the next report waiting for a decision, this one skipped for now.
            values["triage"] = .bool(true)
            values["next"] = .string(
                "/review/triage?" + (filterString.isEmpty ? "" : filterString + "&") + "from=\(row.id)")
            values["waiting"] = .string(
                messages.format(
                    "review.triage.waiting",
                    ["count": String(try ReviewTriage.waitingCount(review.store, query: query))]))
            values["undo"] = try ReviewTriage.undoValue(review, undo, query: query, user: user, messages: messages)
        }
        values["dashboard"] = .string("/review" + suffix)
        values.merge(try ReportSiteSection.values(review, row: row, messages: messages)) { $1 }
        values["discarded"] = MustacheValue(
            row.discardedAt.map {
                messages.format(
                    "review.trash.since", ["who": row.discardedBy ?? "?", "when": ReviewPresentation.time($0)])
            })
        values["canDiscard"] = .bool(
            row.discardedAt == nil && ReviewAction.discardable.map(\.rawValue).contains(row.delivery))
        values["canDecide"] = .bool(
            ReviewAction.approve.review?.from.map(\.rawValue).contains(row.review) == true)
        values["canReopen"] = .bool(row.review != "received")
        return try review.web.render(
            "review-report", title: row.name ?? messages["list.noName"], values, context: context, status: status)
    }

    /// A report's photo or thumbnail, to coordinators: the same guards as the owner's `/photos/…`.
    static func photo(_ review: Review, _ request: Request, _ context: WebContext, thumbnail: Bool) -> Response {
        let files = PhotoFiles(directory: review.web.photosDirectory)
        // Only a photo of a report on the review: never one of a draft or of a kiosk visit in progress.
        guard let photo = request.parameters["photo"], PhotoFiles.isValidID(photo),
            (try? review.store.isReviewablePhoto(photo)) == true
        else {
            return notFound(review, context)
        }
        let path = thumbnail ? files.thumbnailPath(photo) : files.originalPath(photo)
        guard let size = files.size(of: path), let type = thumbnail ? "image/jpeg" : imageType(atPath: path)
        else { return notFound(review, context) }
        var response = Response(
            status: 200, headers: Headers([("Content-Type", type)]), body: .file(path: path, size: size))
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("Content-Disposition", "inline")
        response.headers.add("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; sandbox")
        response.headers.add("Cache-Control", PhotoFiles.cacheControl)
        return context.finish(ConditionalFile.respond(to: request, with: response))
    }

    /// The type of a kept photo from its first bytes: only the three image types are ever served.
    static func imageType(atPath path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 12)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 12) }
        guard count == 12 else { return nil }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: Array("RIFF".utf8)) && Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    /// The photos' positions for the map of them (REV-06), as the page's script reads them: a JSON array
    /// of `[latitude, longitude, accuracy or null, n]`, numbers only; nil when no photo has a position.
    static func photoPoints(_ photos: [ReviewPhoto]) -> String? {
        let points = photos.enumerated().compactMap { index, photo -> String? in
            guard let latitude = photo.latitude, let longitude = photo.longitude, latitude.isFinite,
                longitude.isFinite
            else { return nil }
            let accuracy = photo.accuracy.flatMap { $0.isFinite ? String($0) : nil } ?? "null"
            return "[\(latitude),\(longitude),\(accuracy),\(index + 1)]"
        }
        return points.isEmpty ? nil : "[" + points.joined(separator: ",") + "]"
    }
}
