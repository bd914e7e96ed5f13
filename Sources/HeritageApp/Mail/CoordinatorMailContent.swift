/// What coordinators and administrators are told (NOT-02): a report as it arrives, the digest of what
/// waits, an administrator's note of old problems. Every line links to the dashboard filtered to it,
/// with the dashboard's own filter parameters (`ReviewQuery`).
extension MailContent {
    /// A report that arrived for review, for a coordinator who chose each report.
    static func reportArrived(
        _ messages: Messages, title: String, origin: String, baseURL: String
    ) -> MailContent {
        let title = MailHeader.plainText(title, limit: 80)
        return MailContent(
            template: "summary", subject: messages.format("mail.report.subject", ["title": title]),
            values: ["intro": messages.format("mail.report.body", ["title": title, "origin": origin])],
            lines: [
                (messages["mail.report.open"], baseURL + "/review?review=received"),
                (messages["mail.coordinator.settings"], baseURL + "/review/settings"),
            ])
    }

    /// How many reports wait, how old the oldest is, replies and delivery failures waiting.
    static func digest(_ messages: Messages, _ counts: DigestCounts, baseURL: String) -> MailContent {
        let review = baseURL + "/review"
        var lines: [(text: String, url: String)] = [
            (messages.format("mail.digest.waiting", ["n": String(counts.waiting)]), review + "?review=received")
        ]
        if counts.waiting > 0 {
            lines.append(
                (
                    messages.format("mail.digest.oldest", ["age": age(counts.oldestAge, messages)]),
                    review + "?review=received&sort=oldest"
                ))
        }
        lines.append(
            (messages.format("mail.digest.replies", ["n": String(counts.replies)]), review + "?need=replied"))
        lines.append(
            (
                messages.format("mail.digest.failures", ["n": String(counts.failures)]),
                review + "?delivery=needs_attention"
            ))
        if counts.folded > 0 {
            lines.append(
                (messages.format("mail.digest.folded", ["n": String(counts.folded)]), review + "?origin=kiosk"))
        }
        lines.append((messages["mail.coordinator.settings"], review + "/settings"))
        return MailContent(
            template: "summary", subject: messages.format("mail.digest.subject", ["n": String(counts.waiting)]),
            values: ["intro": messages["mail.digest.intro"]], lines: lines)
    }

    /// Delivery failures and kiosks needing attention older than a day, for an administrator.
    static func adminNote(_ messages: Messages, failures: Int, kiosks: Int, baseURL: String) -> MailContent {
        MailContent(
            template: "summary", subject: messages["mail.adminNote.subject"],
            values: ["intro": messages["mail.adminNote.intro"]],
            lines: [
                (
                    messages.format("mail.adminNote.failures", ["n": String(failures)]),
                    baseURL + "/review?delivery=needs_attention"
                ),
                (messages.format("mail.adminNote.kiosks", ["n": String(kiosks)]), baseURL + "/review/kiosks"),
            ])
    }

    /// An age in the largest unit that keeps it readable: minutes, hours, then days.
    static func age(_ seconds: Int, _ messages: Messages) -> String {
        switch seconds {
        case ..<3600: messages.format("mail.age.minutes", ["n": String(max(1, seconds / 60))])
        case ..<(48 * 3600): messages.format("mail.age.hours", ["n": String(seconds / 3600)])
        default: messages.format("mail.age.days", ["n": String(seconds / 86_400)])
        }
    }
}
