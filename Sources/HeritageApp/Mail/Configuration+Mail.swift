extension Configuration {
    /// The mail keys go together: a server needs a sender, a sender or user needs a server.
    func validateMail() throws {
        guard let url = smtpURL else {
            if smtpFrom != nil || smtpUser != nil || smtpPassword != nil {
                throw ConfigurationError("smtp_from, smtp_user and HAR_SMTP_PASSWORD need smtp_url")
            }
            return
        }
        let scheme = url.lowercased()
        guard scheme.hasPrefix("smtp://") || scheme.hasPrefix("smtps://") else {
            throw ConfigurationError("bad value for \"smtp_url\": expected smtp://host:port or smtps://host:port")
        }
        // The password has its own variable; one written into the URL would be logged with it.
        if url.dropFirst(scheme.hasPrefix("smtps") ? 8 : 7).prefix(while: { $0 != "/" }).contains("@") {
            throw ConfigurationError(
                "bad value for \"smtp_url\": no user or password in the URL; use smtp_user and HAR_SMTP_PASSWORD")
        }
        guard let from = smtpFrom else { throw ConfigurationError("smtp_url is set but smtp_from is missing") }
        if MailAddress(from) == nil {
            throw ConfigurationError("bad value for \"smtp_from\": expected a plain address such as har@example.org")
        }
        if smtpPassword != nil, smtpUser == nil {
            throw ConfigurationError("HAR_SMTP_PASSWORD is set but smtp_user is missing")
        }
    }
}
