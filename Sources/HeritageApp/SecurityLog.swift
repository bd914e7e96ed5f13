import Basics
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// Security events, one line each on standard error, for an operator or a log
/// shipper to alert on: `… security event=signin.failure client=203.0.113.7 email=sha256:0f1e… reason=…`.
/// Never a password, token, cookie or session id; an e-mail only as a shortened SHA-256 of its
/// lower-cased form, enough to see that attempts aim at one account without writing the address.
extension Log {
    /// The event's name and its fields, in the order given; values are made printable.
    func security(_ event: String, _ fields: KeyValuePairs<String, String>) {
        var line = "\(Self.timestamp(WallClock.now())) security event=\(event)"
        for (key, value) in fields { line += " \(key)=\(Self.printable(value))" }
        Self.write(line + "\n", to: STDERR_FILENO)
    }

    /// The first 64 bits of SHA-256 of the address, lower-cased, as hex.
    static func emailDigest(_ email: String) -> String {
        "sha256:" + SHA256Stream.hash(Array(email.lowercased().utf8)).prefix(16)
    }
}
