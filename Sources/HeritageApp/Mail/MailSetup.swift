import Mustache

/// How `Application` gets mail going, and what `/metrics` says of it.
enum MailSetup {
    static func worker(
        configuration: Configuration, store: any MailOutboxStore, templates: TemplateLibrary, catalog: MessageCatalog,
        log: Log
    ) -> MailWorker? {
        guard let settings = SMTPSettings(configuration) else { return nil }
        return MailWorker(
            store: store, sender: SMTPSender(settings: settings),
            messages: MailJobMessages(
                templates: templates, catalog: catalog, baseURL: configuration.publicBaseURL),
            node: configuration.nodeName, retryBase: configuration.retryBaseSeconds,
            retryCap: configuration.retryCapSeconds, log: log)
    }

    /// Rows of the mail outbox by state, from the database, so every node reports the same numbers.
    static func metricsText(_ counts: [String: Int]?) -> String {
        guard let counts else { return "" }
        var text = "# HELP har_mail_messages Messages of the mail outbox by state (queued, sending, sent, failed).\n"
        text += "# TYPE har_mail_messages gauge\n"
        for state in ["queued", "sending", "sent", "failed"] {
            text += "har_mail_messages{state=\"\(state)\"} \(counts[state] ?? 0)\n"
        }
        return text
    }
}
