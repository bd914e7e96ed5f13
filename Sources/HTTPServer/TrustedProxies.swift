import Glibc

/// The reverse proxies whose word about the client is believed (`HAR_TRUSTED_PROXIES`): behind one,
/// every connection comes from the proxy, and only the proxy can say who the client is. The address
/// used for limits and logs is found as Rails' `remote_ip` and Express's `trust proxy` find it (their
/// documentation taught us the rule): walk the forwarding chain from the nearest hop outwards, skip the
/// hops that are trusted proxies, and take the first that is not. A client can prepend anything it
/// likes to the chain but cannot get past the last trusted hop, so it cannot choose its address.
/// RFC 7239 `Forwarded` is read when present, else `X-Forwarded-For`. From any other peer neither is
/// believed.
public struct TrustedProxies: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        var bytes: [UInt8]  // 4 or 16
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for index in 0..<bytes.count where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let ranges: [Range]

    /// No proxy trusted: the peer is the client.
    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) { self.ranges = ranges }

    /// Parses "127.0.0.1, 10.0.0.0/8, ::1, fd00::/8". Nil, with the entry at fault, when one is not an
    /// address or a CIDR range.
    public static func parse(_ text: String) -> Result<TrustedProxies, InvalidEntry> {
        var ranges: [Range] = []
        for part in text.split(separator: ",") {
            let entry = String(part).filter { $0 != " " && $0 != "\t" }
            if entry.isEmpty { continue }
            let pieces = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = addressBytes(String(pieces[0])) else { return .failure(InvalidEntry(entry: entry)) }
            var length = bytes.count * 8
            if pieces.count == 2 {
                guard let given = Int(pieces[1]), pieces[1].allSatisfy(\.isNumber), (0...length).contains(given)
                else { return .failure(InvalidEntry(entry: entry)) }
                length = given
            }
            ranges.append(Range(bytes: bytes, prefixLength: length))
        }
        return .success(TrustedProxies(ranges: ranges))
    }

    public struct InvalidEntry: Error, Equatable {
        public let entry: String
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether an address (text, as a peer or a forwarding entry gives it) is a trusted proxy.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.addressBytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address for a request from `peer` with these headers.
    public func clientAddress(peer: String, headers: Headers) -> String {
        // No proxy trusted (the default): nothing to parse, on every request.
        guard !ranges.isEmpty, contains(peer) else { return peer }
        let chain: [String]
        let forwarded = headers.values("Forwarded")
        let forwardedFor = headers.values("X-Forwarded-For")
        if !forwarded.isEmpty {
            chain = Self.forwardedFor(forwarded)
        } else if !forwardedFor.isEmpty {
            chain = forwardedFor.flatMap { $0.split(separator: ",") }.map { Self.trimmed($0) }
        } else {
            return peer
        }
        var client = peer
        for entry in chain.reversed() {
            // A hop that is not an address ("unknown", an obfuscated name, garbage): the trusted hop
            // that reported it is as far as we can see.
            guard let address = Self.canonical(entry) else { return client }
            client = address
            if !contains(address) { return address }
        }
        return client
    }

    /// The `for=` values of RFC 7239 fields, in order, quotes, brackets and ports removed.
    static func forwardedFor(_ fields: [String]) -> [String] {
        var result: [String] = []
        for field in fields {
            for element in field.split(separator: ",") {
                var found: String?
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, trimmed(parts[0]).lowercased() == "for" else { continue }
                    var value = Substring(trimmed(parts[1]))
                    if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                        value = value.dropFirst().dropLast()
                    }
                    if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
                        value = value[value.index(after: value.startIndex)..<close]
                    } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
                        value = value[..<colon]  // IPv4 with a port
                    }
                    found = String(value)
                }
                result.append(found ?? "")
            }
        }
        return result
    }

    /// The address in its usual text form (IPv4-mapped IPv6 as IPv4), or nil when it is not one.
    static func canonical(_ text: String) -> String? {
        guard let bytes = addressBytes(text) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard ok != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// 4 bytes for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes[12..<16])
        }
        return bytes
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
