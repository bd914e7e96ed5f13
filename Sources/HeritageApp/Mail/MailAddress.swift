/// An e-mail address we are willing to put in an envelope and a header: ASCII, `local@domain`, no
/// white space, no control character and none of the characters that would need quoting in a header
/// or that curl would read as the end of its `<…>` envelope argument. Stricter than RFC 5321 on purpose:
/// the rare address this refuses costs less than one that rewrites a header or an SMTP command.
struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    let text: String

    init?(_ candidate: String) {
        let bytes = Array(candidate.utf8)
        guard bytes.count >= 3, bytes.count <= 254 else { return nil }
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1,
            bytes.firstIndex(of: UInt8(ascii: "@")) == at
        else { return nil }
        let forbidden = Set("<>()[]\\,;:\"".utf8)
        for byte in bytes where byte <= 0x20 || byte >= 0x7F || forbidden.contains(byte) { return nil }
        let domain = bytes[(at + 1)...]
        guard !domain.starts(with: [UInt8(ascii: ".")]), domain.last != UInt8(ascii: ".") else { return nil }
        text = candidate
    }

    /// The domain part, for Message-IDs.
    var domain: String { String(text.split(separator: "@").last ?? "localhost") }

    var description: String { text }
}
