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
            let port = value[(restStart + 1)...]
            guard value[restStart] == UInt8(ascii: ":"), !port.isEmpty, port.count <= 5,
                port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
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
