/// How a grant's e-mail is written and matched against a sign-in (REV-10). A domain never tells the
/// letters' case apart (RFC 5321, section 2.4) but a local part may, and some platforms keep `Ann@x` and
/// `ann@x` as two accounts: a grant keeps its local part exactly as the administrator typed it, and binds
/// by itself only to a sign-in that typed the same. Lookups still ignore case, so that one e-mail holds
/// one grant whatever its spelling, and another spelling is shown to the administrator, never bound.
enum GrantEmail {
    /// The e-mail trimmed, its domain lower-cased, its local part as typed.
    static func normalized(_ email: String) -> String {
        let trimmed = Text.trimmed(email)
        guard let at = trimmed.lastIndex(of: "@") else { return trimmed }
        return String(trimmed[..<at]) + "@" + trimmed[trimmed.index(after: at)...].lowercased()
    }

    /// Whether a sign-in that typed `typed` signed in with exactly the granted e-mail.
    static func matches(_ typed: String, grant: String) -> Bool {
        normalized(typed) == normalized(grant)
    }
}
