import PlatformClient

/// One message as RFC 5322 and RFC 2045 want it: multipart/alternative with a plain-text and an HTML
/// part, both UTF-8 in base64. Base64 bodies mean no line of a user's text can be read as a boundary, a
/// header or the SMTP end-of-data dot, however it is written.
struct MailMessage: Sendable {
    var from: MailAddress
    var fromName: String?
    var to: MailAddress
    var toName: String?
    var subject: String
    var text: String
    var html: String
    /// `…@domain`, without the angle brackets; stable across retries of one outbox row, so that a
    /// duplicate a retry could cause is recognisable as the same message.
    var messageID: String
    var dateSeconds: Int
    /// The https link a mail client POSTs to for a one-click unsubscribe (RFC 8058); nil for a message a
    /// person cannot turn off (an operator's `har mail test`).
    var unsubscribeURL: String?
    var language: Language

    /// A fresh Message-ID in the sender's domain.
    static func newMessageID(domain: String) -> String {
        "\(Crypto.randomHex(bytes: 16))@\(domain)"
    }

    /// The whole message, CRLF line ends, ready for SMTP DATA.
    func bytes(boundary: String = "=_har_" + Crypto.randomHex(bytes: 12)) -> [UInt8] {
        var lines = [
            "Date: " + MailDate.format(secondsSince1970: dateSeconds),
            "From: " + MailHeader.mailbox(from, name: fromName),
            "To: " + MailHeader.mailbox(to, name: toName),
            "Subject: " + MailHeader.encodedWords(subject),
            "Message-ID: <" + Self.safeToken(messageID) + ">",
            "MIME-Version: 1.0",
            "Content-Language: " + language.rawValue,
            // RFC 3834: no vacation or out-of-office reply should answer a machine.
            "Auto-Submitted: auto-generated",
        ]
        if let unsubscribeURL {
            lines.append("List-Unsubscribe: <" + Self.safeToken(unsubscribeURL) + ">")
            lines.append("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
        }
        lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
        var body = lines.joined(separator: "\r\n") + "\r\n\r\n"
        body += part(boundary, type: "text/plain", content: text)
        body += part(boundary, type: "text/html", content: html)
        body += "--\(boundary)--\r\n"
        return Array(body.utf8)
    }

    private func part(_ boundary: String, type: String, content: String) -> String {
        "--\(boundary)\r\nContent-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + MailHeader.base64Lines(Array(Self.canonicalLineEnds(content).utf8))
    }

    /// RFC 2046 §4.1.1: text is CRLF-ended in its canonical form, which is what base64 must carry.
    static func canonicalLineEnds(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count + 64)
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                output += "\r\n"
            } else if scalar != "\r" {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// Values we make ourselves (ids, our own links) still go through this: printable ASCII without
    /// spaces or angle brackets, so a bad base URL in the configuration cannot break the header either.
    static func safeToken(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F && $0 != "<" && $0 != ">" }))
    }
}
