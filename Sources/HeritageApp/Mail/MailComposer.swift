import Mustache

/// What one kind of message says: its templates (`mail/<name>-text` and `-html`), its subject and the
/// values both parts show. Values a user wrote (a name, a question) are plain strings here; the HTML
/// template escapes them, the text part carries them as they are, inside a base64 body.
struct MailContent: Sendable {
    let template: String
    let subject: String
    let values: [String: String]
    /// Lines of a summary (a digest, an administrator's note), each with the page it is about.
    var lines: [(text: String, url: String)] = []

    /// The operator's test message of `har mail test`.
    static func test(_ messages: Messages) -> MailContent {
        MailContent(template: "test", subject: messages["mail.test.subject"], values: [:])
    }

    /// A coordinator's question to a reporter, with the link to answer it.
    static func needsInfo(
        _ messages: Messages, reporterName: String, reportTitle: String, question: String, answerURL: String
    ) -> MailContent {
        // The title lands in the subject too: one line, a sensible length.
        let title = MailHeader.plainText(reportTitle, limit: 80)
        return MailContent(
            template: "needs-info",
            subject: messages.format("mail.needsInfo.subject", ["title": title]),
            values: [
                "greeting": messages.format("mail.needsInfo.greeting", ["name": MailHeader.plainText(reporterName)]),
                "intro": messages.format("mail.needsInfo.body", ["title": title]),
                "question": question,
                "answerURL": answerURL,
            ])
    }
}

extension MailContent {
    /// A coordinator's decision on a reporter's report: approved, or rejected with the label of its public
    /// reason code (never a coordinator's note).
    static func decision(
        _ messages: Messages, approved: Bool, reporterName: String, reportTitle: String, reasonCode: String?,
        listURL: String
    ) -> MailContent {
        let title = MailHeader.plainText(reportTitle, limit: 80)
        let key = approved ? "mail.approved" : "mail.rejected"
        let reason = reasonCode.map { messages["review.reason.\($0)"] } ?? ""
        return MailContent(
            template: "decision", subject: messages.format(key + ".subject", ["title": title]),
            values: [
                "greeting": messages.format("mail.needsInfo.greeting", ["name": MailHeader.plainText(reporterName)]),
                "intro": messages.format(key + ".body", ["title": title, "reason": reason]),
                "listURL": listURL,
            ])
    }
}

/// Renders a `MailContent` into a `MailMessage` in the recipient's language.
struct MailComposer: Sendable {
    let templates: TemplateLibrary
    let catalog: MessageCatalog
    let from: MailAddress

    func compose(
        _ content: (Messages) -> MailContent, to: MailAddress, toName: String? = nil, language: Language,
        messageID: String, dateSeconds: Int, unsubscribeURL: String? = nil
    ) throws -> MailMessage {
        let messages = catalog.messages(for: language)
        let made = content(messages)
        var fields: [(String, MustacheValue)] = [
            ("t", messages.tree), ("lang", .string(language.rawValue)), ("subject", .string(made.subject)),
            ("unsubscribeURL", MustacheValue(unsubscribeURL)),
        ]
        for (key, value) in made.values.sorted(by: { $0.key < $1.key }) { fields.append((key, .string(value))) }
        fields.append(("lines", .array(made.lines.map { ["text": .string($0.text), "url": .string($0.url)] })))
        let context = MustacheValue.fields(MustacheFields(fields))
        return MailMessage(
            from: from, fromName: messages["app.name"], to: to, toName: toName, subject: made.subject,
            text: try templates.render("mail/\(made.template)-text", context),
            html: try templates.render("mail/\(made.template)-html", context),
            messageID: messageID, dateSeconds: dateSeconds, unsubscribeURL: unsubscribeURL, language: language)
    }
}
