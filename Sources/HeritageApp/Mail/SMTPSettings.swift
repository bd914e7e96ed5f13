/// Where and as whom mail is sent. The password comes from `HAR_SMTP_PASSWORD` only, never a config
/// file, and is never logged or printed.
struct SMTPSettings: Sendable {
    let url: String
    let from: MailAddress
    let user: String?
    let password: String?
    /// PEM authorities to trust for the server's certificate; nil = the system's.
    let caFile: String?
    let timeoutSeconds: Double

    /// The settings of a configuration; nil when no `smtp_url` is set (mail off) or `smtp_from` is bad.
    init?(_ configuration: Configuration) {
        guard let url = configuration.smtpURL, let from = configuration.smtpFrom.flatMap(MailAddress.init) else {
            return nil
        }
        self.url = url
        self.from = from
        user = configuration.smtpUser
        password = configuration.smtpPassword
        caFile = configuration.smtpCAFile
        timeoutSeconds = configuration.smtpTimeoutSeconds
    }

    /// smtps:// is TLS from the first byte; smtp:// upgrades with STARTTLS when the server offers it.
    var isImplicitTLS: Bool { url.lowercased().hasPrefix("smtps://") }

    /// Whether the server is this machine, where a cleartext connection crosses no network.
    var isLoopback: Bool {
        let rest = url.drop { $0 != "/" }.drop { $0 == "/" }
        let authority = rest.prefix { $0 != "/" }
        let host: Substring =
            authority.hasPrefix("[") ? authority.dropFirst().prefix { $0 != "]" } : authority.prefix { $0 != ":" }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// How one attempt to hand a message to the SMTP server ended, grouped by what the outbox does next.
enum SMTPOutcome: Sendable, Equatable {
    /// The server took the message (250 after DATA); `reply` is its last line.
    case sent(reply: String)
    /// A 5xx answer: retrying would get the same; recorded for an admin, never retried.
    case rejected(code: Int, reply: String)
    /// A 4xx answer, or the message never left: retry later, nothing was delivered.
    case deferred(code: Int, reply: String)
    /// The whole message went but no answer came (the connection dropped after DATA): the server may
    /// have taken it. Retrying risks a duplicate (same Message-ID); not retrying risks a loss.
    case uncertain(reply: String)
}
