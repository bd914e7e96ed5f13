import Basics
import Mustache

/// How the review's values read on its pages, in the user's language.
enum ReviewPresentation {
    static func time(_ seconds: Double?) -> String { ReviewLabels.utcText(seconds) }

    static func row(_ row: ReviewRow, messages: Messages, now: Double = WallClock.now()) -> MustacheValue {
        let claimed = (row.claimedUntil ?? 0) > now ? row.claimedBy : nil
        let fields: [String: MustacheValue] = [
            "id": .string(String(row.id)), "localID": .string(row.localID),
            "name": .string(row.name.flatMap { $0.isEmpty ? nil : $0 } ?? messages["list.noName"]),
            "reporter": .string(row.reporter), "when": .string(ReviewLabels.utcText(row.submittedAt)),
            "whenISO": .string(ReviewLabels.iso(row.submittedAt)),
            "codes": .string(ReviewLabels.summary(row, messages)),
            "review": .string(row.review), "reviewLabel": .string(ReviewLabels.reviewState(row.review, messages)),
            "delivery": .string(row.delivery),
            "deliveryLabel": .string(ReviewLabels.deliveryState(row.delivery, messages)),
            "origin": .string(ReviewLabels.origin(row.origin, messages)),
            "claimedBy": MustacheValue(claimed),
            "thumb": MustacheValue(row.firstPhoto.map { "/review/photos/\($0)/thumb" }),
            "failure": MustacheValue(row.lastError), "replied": .bool(row.repliedAt != nil && row.review == "received"),
            "photos": .int(row.photoCount),
        ]
        return .dictionary(fields)
    }

    /// One line on what came of an action.
    static func outcome(_ outcome: ReviewOutcome, messages: Messages) -> String {
        switch outcome {
        case .done:
            return messages["review.outcome.done"]
        case .notFound:
            return messages["review.outcome.notFound"]
        case .conflict(let actor, let action, let at):
            return messages.format(
                "review.outcome.conflict",
                ["actor": actor, "action": messages[ReviewAction.labelKey(action)], "when": time(at)])
        case .notApplicable("undo"):
            return messages["review.outcome.tooLate"]
        case .notApplicable("snapshot"):
            return messages["review.outcome.notConfirmed"]
        case .notApplicable("withdrawn"):
            return messages["review.outcome.withdrawn"]
        case .notApplicable(let state):
            return messages.format(
                "review.outcome.notApplicable", ["state": messages["review.delivery.\(state)"]])
        }
    }

    /// A number with `digits` decimals (coordinates, metres), the same in every language.
    static func decimal(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int64(scaled / scale)
        let fraction = Int64(scaled) - whole * Int64(scale)
        let sign = value < 0 && scaled > 0 ? "-" : ""
        guard digits > 0 else { return sign + String(whole) }
        let text = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// What the reporter's list shows of the review (REV-02, REV-04): each of their reports a coordinator
/// has decided on, with its state, the coordinator's message, and a link to answer when asked to.
enum ReviewNotices {
    static func value(_ web: Web, _ context: WebContext) -> MustacheValue {
        guard let user = context.user, let states = try? web.stores.review.reviewStates(userID: user.id) else {
            return .null
        }
        guard !states.isEmpty else { return .null }
        let messages = context.messages
        let items = MustacheValue.array(
            states.sorted { $0.key < $1.key }.map { localID, view in
                [
                    "localID": .string(localID), "name": .string(view.name ?? messages["list.noName"]),
                    "state": .string(messages["review.listState.\(view.review)"]),
                    "message": MustacheValue(view.message),
                    "reason": MustacheValue(view.reason.map { messages["review.reason.\($0)"] }),
                    "attention": .bool(view.review == ReviewState.needsInfo.rawValue),
                ]
            })
        return ["items": items]
    }
}
