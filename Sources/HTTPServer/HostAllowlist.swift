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
        guard let host = Self.hostName(hostField) else { return false }
        if host == "localhost" || Self.isAddress(host) { return true }
        return entries.contains { entry in
            entry.hasPrefix(".") ? host.hasSuffix(entry) || host == entry.dropFirst() : host == entry
        }
    }

    /// The name of a `Host` field without its port, lower-cased; "[::1]:8080" gives "::1". Nil when the
    /// field is not a name, an address or a bracketed IPv6 address, with an optional numeric port.
    public static func hostName(_ field: String) -> String? {
        let value = field.lowercased()
        var name: Substring
        var rest: Substring
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            name = value[value.index(after: value.startIndex)..<close]
            rest = value[value.index(after: close)...]
        } else if let colon = value.firstIndex(of: ":") {
            name = value[..<colon]
            rest = value[colon...]
        } else {
            name = Substring(value)
            rest = ""
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == ":", !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCIIDigit) else {
                return nil
            }
        }
        if name.hasSuffix(".") { name = name.dropLast() }  // "example.org." is the same name
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-.:".unicodeScalars.contains(scalar))
        }
        return name.isEmpty || !allowed ? nil : String(name)
    }
}

extension HostAllowlist {
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
