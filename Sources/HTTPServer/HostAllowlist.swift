import Glibc

/// The names a server answers to, against DNS rebinding: a page on another site whose name an
/// attacker points at this server's address reaches it with that site's name in `Host`, and is
/// refused (400) before any handler runs. An IP address or `localhost` in `Host` is always answered:
/// a browser sends one only to a page loaded from that very address, which no attacker's name can
/// be. Entries are host names, compared without the port and case-insensitively; an entry starting
/// with a dot (".example.org") also allows every name under it, as Django's ALLOWED_HOSTS does.
public struct HostAllowlist: Sendable, Equatable {
    public let entries: [String]

    public init(_ entries: [String]) {
        self.entries = entries.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether a request's `Host` field names an allowed host. A request without one has nothing to
    /// check here (HTTP/1.0; browsers always send it).
    public func allows(_ hostField: String?) -> Bool {
        guard let hostField else { return true }
        return plainlyAllows(hostField) || checkedAllows(hostField)
    }

    /// The answer for every field, read in full: the name taken out and lower-cased, then compared.
    func checkedAllows(_ hostField: String) -> Bool {
        guard let host = Self.hostName(hostField) else { return false }
        if host == "localhost" || Self.isAddress(host) { return true }
        return entries.contains { entry in
            entry.hasPrefix(".") ? host.hasSuffix(entry) || host == entry.dropFirst() : host == entry
        }
    }

    /// The usual fields, read in place without a copy (the full reading was ~2,300 instructions of
    /// every request): a dotted quad, `localhost` or an entry named exactly, each with an optional port.
    /// True only where `checkedAllows` is true too; false means "not one of these", and the full
    /// reading then decides (brackets, a trailing dot, names under a dotted entry, refusals).
    func plainlyAllows(_ hostField: String) -> Bool {
        hostField.utf8.withContiguousStorageIfAvailable { field in
            let colon = field.firstIndex(of: UInt8(ascii: ":")) ?? field.count
            if colon < field.count {
                guard Self.isPort(field[(colon + 1)...]) else { return false }
            }
            let name = UnsafeBufferPointer(rebasing: field[..<colon])
            guard name.last != UInt8(ascii: ".") else { return false }  // "example.org.": read in full
            if Self.isDottedQuad(name) { return true }
            if Self.equalIgnoringASCIICase(name, "localhost") { return true }
            return entries.contains { entry in
                entry.utf8.first != UInt8(ascii: ".") && Self.equalIgnoringASCIICase(name, entry)
            }
        } ?? false
    }

    /// A port as both readings take it: one to five decimal digits.
    static func isPort(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.count <= 5 && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Four decimal numbers up to 255 without leading zeros, as inet_pton reads an IPv4 address.
    static func isDottedQuad(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        var parts = 0
        var digits = 0
        var value = 0
        var leadingZero = false
        for byte in name {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, parts < 3 else { return false }
                parts += 1
                digits = 0
                value = 0
            } else if byte >= 0x30 && byte <= 0x39 {
                if digits == 0 { leadingZero = byte == 0x30 } else if leadingZero { return false }
                digits += 1
                value = value * 10 + Int(byte - 0x30)
                guard value <= 255 else { return false }
            } else {
                return false
            }
        }
        return parts == 3 && digits > 0
    }

    /// `name` equal to `lowercase` (an entry) with A–Z folded, and made of letters, digits, "-" and "."
    /// only; anything else is not equal here.
    static func equalIgnoringASCIICase(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: String) -> Bool {
        var lowercase = lowercase
        return lowercase.withUTF8 { expected in
            guard name.count == expected.count else { return false }
            for index in 0..<name.count {
                let byte = name[index]
                let folded = byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte
                guard folded == expected[index],
                    (folded >= 0x61 && folded <= 0x7A) || (folded >= 0x30 && folded <= 0x39) || folded == 0x2D
                        || folded == 0x2E
                else { return false }
            }
            return true
        }
    }

    /// The name of a `Host` field without its port, lower-cased; "[::1]:8080" gives "::1". Nil when the
    /// field is not a name, an address or a bracketed IPv6 address, with an optional numeric port.
    /// Read byte by byte: it runs on every request, and every byte it accepts is ASCII.
    public static func hostName(_ field: String) -> String? {
        let value = Array(field.utf8)
        var nameStart = 0
        var nameEnd = value.count
        var restStart = value.count
        if value.first == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            nameStart = 1
            nameEnd = close
            restStart = close + 1
        } else if let colon = value.firstIndex(of: UInt8(ascii: ":")) {
            nameEnd = colon
            restStart = colon
        }
        if restStart < value.count {
            guard value[restStart] == UInt8(ascii: ":"), Self.isPort(value[(restStart + 1)...]) else { return nil }
        }
        if nameEnd > nameStart, value[nameEnd - 1] == UInt8(ascii: ".") { nameEnd -= 1 }  // "example.org."
        guard nameEnd > nameStart else { return nil }
        var name = [UInt8]()
        name.reserveCapacity(nameEnd - nameStart)
        for byte in value[nameStart..<nameEnd] {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): name.append(byte + 32)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
                name.append(byte)
            default: return nil
            }
        }
        return String(decoding: name, as: UTF8.self)
    }
}

extension HostAllowlist {
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
