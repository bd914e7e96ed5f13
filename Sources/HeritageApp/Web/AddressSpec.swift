/// The addr-spec of RFC 5322 §3.4.1 (formerly RFC 2822), as a sign-in form needs it: the same rules as
/// `Public/js/addr-spec.js`, so the browser and the server agree on every address (LOG-11).
///
///     addr-spec      = local-part "@" domain
///     local-part     = dot-atom / quoted-string
///     domain         = dot-atom / domain-literal
///     dot-atom-text  = 1*atext *("." 1*atext)
///     atext          = ALPHA / DIGIT / "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "/" / "=" /
///                      "?" / "^" / "_" / "`" / "{" / "|" / "}" / "~"
///     quoted-string  = DQUOTE *([FWS] qcontent) [FWS] DQUOTE
///     qcontent       = qtext / quoted-pair       qtext = %d33 / %d35-91 / %d93-126
///     quoted-pair    = "\" (VCHAR / WSP)
///     domain-literal = "[" *([FWS] dtext) [FWS] "]"     dtext = %d33-90 / %d94-126
///
/// Left out on purpose: comments and folding white space around the parts (CFWS) and the obsolete
/// forms (`obs-local-part`, `obs-domain`), which the RFC says must not be generated, and line breaks
/// inside quoted strings (a form field holds one line). FWS inside quotes is therefore space or tab.
/// ASCII only: RFC 5322 has no non-ASCII (that is RFC 6532, which the platform does not promise).
enum AddressSpec {
    /// Longest address accepted: RFC 5321 §4.5.3.1 limits a path to 256 octets, so 254 for the address.
    static let maximumLength = 254

    static func isValid(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        var index = 0
        if bytes[0] == UInt8(ascii: "\"") {
            guard
                let end = quoted(bytes, from: 0, open: UInt8(ascii: "\""), close: UInt8(ascii: "\""), allowed: isQText)
            else { return false }
            index = end
        } else {
            guard let end = dotAtom(bytes, from: 0) else { return false }
            index = end
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "@") else { return false }
        index += 1
        guard index < bytes.count else { return false }
        let end: Int?
        if bytes[index] == UInt8(ascii: "[") {
            end = quoted(bytes, from: index, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), allowed: isDText)
        } else {
            end = dotAtom(bytes, from: index)
        }
        return end == bytes.count
    }

    /// The index just past a dot-atom-text starting at `start`, or nil. Stops at the first byte that
    /// cannot continue it.
    private static func dotAtom(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        var atomLength = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isAText(byte) {
                atomLength += 1
            } else if byte == UInt8(ascii: ".") {
                guard atomLength > 0 else { return nil }  // leading dot or two dots in a row
                atomLength = 0
            } else {
                break
            }
            index += 1
        }
        return atomLength > 0 ? index : nil  // empty, or a trailing dot
    }

    /// A quoted-string (`"…"`, with quoted-pairs) or a domain-literal (`[…]`, no quoted-pairs).
    private static func quoted(
        _ bytes: [UInt8], from start: Int, open: UInt8, close: UInt8, allowed: (UInt8) -> Bool
    ) -> Int? {
        guard bytes[start] == open else { return nil }
        var index = start + 1
        let allowsQuotedPair = open == UInt8(ascii: "\"")
        while index < bytes.count {
            let byte = bytes[index]
            if byte == close { return index + 1 }
            if byte == 0x20 || byte == 0x09 {  // FWS without a line break
                index += 1
            } else if allowsQuotedPair && byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count, isVCharOrWSP(bytes[index + 1]) else { return nil }
                index += 2
            } else if allowed(byte) {
                index += 1
            } else {
                return nil
            }
        }
        return nil  // never closed
    }

    static func isAText(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
        }
    }

    static func isQText(_ byte: UInt8) -> Bool { byte == 33 || (35...91).contains(byte) || (93...126).contains(byte) }
    static func isDText(_ byte: UInt8) -> Bool { (33...90).contains(byte) || (94...126).contains(byte) }
    static func isVCharOrWSP(_ byte: UInt8) -> Bool { (33...126).contains(byte) || byte == 0x20 || byte == 0x09 }
}
