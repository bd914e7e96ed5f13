import Basics
import Mustache

/// Codes as the coordinator reads them: every code a report carries (the six fields of the submission
/// form, the review and delivery states, the origin, the reject reason) by its label in the page's
/// language, from the same catalogue entries the volunteer's form shows (`submit.codes.*`, see
/// `SubmitForm.selectValues`). A code the catalogue does not know (an old or foreign value) shows as
/// it is, never as a catalogue key.
enum ReviewLabels {
    /// The report's code fields, by their form name (as `SubmitForm.selects` and the CSV name them), and
    /// the catalogue group of each.
    static let fields: [(name: String, group: String)] = [
        ("designation", "designation"), ("condition", "condition"), ("occupancy", "occupancy"),
        ("priority_category", "priorityCategory"), ("owner_type", "ownerType"), ("grade", "grade"),
    ]

    /// The label of `code` in `field` (a form name: `designation`, `priority_category`, …).
    static func code(_ field: String, _ code: String?, _ messages: Messages) -> String {
        guard let code, !code.isEmpty else { return "" }
        let group = fields.first { $0.name == field }?.group ?? field
        return label("submit.codes.\(group).\(code)", code, messages)
    }

    /// The label of a review state (`received`, `needs_info`, …).
    static func reviewState(_ code: String?, _ messages: Messages) -> String {
        guard let code, !code.isEmpty else { return "" }
        return label("review.state.\(code)", code, messages)
    }

    /// The label of a delivery state (`queued`, `needs_attention`, …).
    static func deliveryState(_ code: String?, _ messages: Messages) -> String {
        guard let code, !code.isEmpty else { return "" }
        return label("review.delivery.\(code)", code, messages)
    }

    static func origin(_ code: String?, _ messages: Messages) -> String {
        guard let code, !code.isEmpty else { return "" }
        return label("review.origin.\(code)", code, messages)
    }

    /// The label of a reject reason (`not_heritage`, …).
    static func reason(_ code: String?, _ messages: Messages) -> String {
        guard let code, !code.isEmpty else { return "" }
        return label("review.reason.\(code)", code, messages)
    }

    /// A state change of the audit log (`received → approved`), each side by its label: review states
    /// first, then delivery states, else as written (a role, an e-mail).
    static func change(_ before: String?, _ after: String?, _ messages: Messages) -> String {
        [before, after].compactMap { $0 }.filter { !$0.isEmpty }.map { value in
            if messages.flat["review.state.\(value)"] != nil { return reviewState(value, messages) }
            if messages.flat["review.delivery.\(value)"] != nil { return deliveryState(value, messages) }
            return value
        }.joined(separator: " → ")
    }

    /// The dashboard's short summary of a report: designation, condition, grade, by their labels.
    static func summary(_ row: ReviewRow, _ messages: Messages) -> String {
        [
            code("designation", row.designation, messages), code("condition", row.condition, messages),
            code("grade", row.grade, messages),
        ].filter { !$0.isEmpty }.joined(separator: " · ")
    }

    /// Each code field of the report with its label and its value's label, in the form's order (empty
    /// fields left out): the report page's details.
    static func details(_ row: ReviewRow, _ messages: Messages) -> [(label: String, value: String)] {
        let values: [String: String?] = [
            "designation": row.designation, "condition": row.condition, "occupancy": row.occupancy,
            "priority_category": row.priorityCategory, "owner_type": row.ownerType, "grade": row.grade,
        ]
        return fields.compactMap { field in
            let value = code(field.name, values[field.name] ?? nil, messages)
            return value.isEmpty ? nil : (messages["submit.fields.\(field.group)"], value)
        }
    }

    // MARK: Times

    /// The exact time in UTC as the page shows it before its script turns it into the reader's zone
    /// (and as it stays without JavaScript, and in exports' human columns): `2026-12-03 05:22:47 UTC`.
    static func utcText(_ seconds: Double?) -> String {
        guard let seconds, seconds > 0 else { return "" }
        return ISO8601.utc(seconds: seconds).replacing("T", with: " ").replacing("Z", with: " UTC")
    }

    /// The machine-readable time for `<time datetime>`: ISO 8601 in UTC.
    static func iso(_ seconds: Double?) -> String {
        guard let seconds, seconds > 0 else { return "" }
        return ISO8601.utc(seconds: seconds)
    }

    /// A time for a template: `{{#at}}<time datetime="{{iso}}" class="review-time">{{text}}</time>{{/at}}`
    /// (`review-time.js` turns it into the browser's zone with "3 min ago"); null without a time.
    static func time(_ seconds: Double?) -> MustacheValue {
        guard let seconds, seconds > 0 else { return .null }
        return ["iso": .string(iso(seconds)), "text": .string(utcText(seconds))]
    }

    /// A message with a time in it, for a template:
    /// `{{before}}{{#at}}<time datetime="{{iso}}" class="review-time">{{text}}</time>{{/at}}{{after}}`; the
    /// time goes where the message says `{when}`, its other placeholders are filled from `values`. Split
    /// before filling, so that a value that happens to read `{when}` stays text.
    static func sentence(_ message: String, when seconds: Double?, _ values: KeyValuePairs<String, String>)
        -> MustacheValue
    {
        guard let place = message.firstRange(of: "{when}") else {
            return ["before": .string(Messages.fill(message, values)), "at": .null, "after": .string("")]
        }
        return [
            "before": .string(Messages.fill(String(message[..<place.lowerBound]), values)),
            "at": time(seconds),
            "after": .string(Messages.fill(String(message[place.upperBound...]), values)),
        ]
    }

    private static func label(_ key: String, _ code: String, _ messages: Messages) -> String {
        messages.flat[key] ?? code
    }
}
