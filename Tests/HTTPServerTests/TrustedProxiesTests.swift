import Testing

@testable import HTTPServer

/// `TrustedProxies` and `HostAllowlist` as pure functions; the real server's use of them is tested
/// in HeritageAppTests (ProxyTests, TransportSecurityTests).
@Suite struct TrustedProxiesTests {
    private func proxies(_ text: String) throws -> TrustedProxies {
        try TrustedProxies.parse(text).get()
    }

    private func headers(_ fields: [(String, String)]) -> Headers { Headers(fields) }

    @Test func addressesAndRangesOfBothFamilies() throws {
        let trusted = try proxies("127.0.0.1, 10.0.0.0/8,fd00::/8, ::1")
        for inside in ["127.0.0.1", "10.1.2.3", "10.255.255.255", "fd12::1", "::1", "::ffff:10.0.0.9"] {
            #expect(trusted.contains(inside), "\(inside)")
        }
        for outside in ["127.0.0.2", "11.0.0.1", "fe80::1", "::2", "not an address", ""] {
            #expect(!trusted.contains(outside), "\(outside)")
        }
        #expect(try proxies("192.168.1.0/31").contains("192.168.1.1"))
        #expect(try !proxies("192.168.1.0/31").contains("192.168.1.2"))
        #expect(try proxies("0.0.0.0/0").contains("203.0.113.1"))
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "example.org", "::1/129", "10.0.0.0/-1", "1.2.3.4/8x"])
    func aBadEntryIsNamed(entry: String) {
        #expect(throws: TrustedProxies.InvalidEntry(entry: entry)) {
            try TrustedProxies.parse("127.0.0.1, " + entry).get()
        }
    }

    @Test func theClientIsTheFirstUntrustedHopFromTheNearestOutwards() throws {
        let trusted = try proxies("127.0.0.1, 10.0.0.0/8")
        func client(_ peer: String, _ fields: [(String, String)]) -> String {
            trusted.clientAddress(peer: peer, headers: headers(fields))
        }
        #expect(client("127.0.0.1", [("X-Forwarded-For", "203.0.113.9")]) == "203.0.113.9")
        // A client that prepends a fake hop cannot get past the last trusted proxy.
        #expect(client("127.0.0.1", [("X-Forwarded-For", "1.1.1.1, 203.0.113.9")]) == "203.0.113.9")
        #expect(client("127.0.0.1", [("X-Forwarded-For", "203.0.113.9, 10.0.0.5")]) == "203.0.113.9")
        #expect(
            client("127.0.0.1", [("X-Forwarded-For", "198.51.100.1"), ("X-Forwarded-For", "203.0.113.9")])
                == "203.0.113.9")
        // Nobody but a trusted peer is believed.
        #expect(client("198.51.100.7", [("X-Forwarded-For", "203.0.113.9")]) == "198.51.100.7")
        // No field: the proxy itself.
        #expect(client("127.0.0.1", []) == "127.0.0.1")
        // Every hop trusted: the farthest one.
        #expect(client("127.0.0.1", [("X-Forwarded-For", "10.0.0.1, 10.0.0.2")]) == "10.0.0.1")
        // Garbage or "unknown": the trusted hop that passed it on.
        #expect(client("127.0.0.1", [("X-Forwarded-For", "203.0.113.9, unknown")]) == "127.0.0.1")
        #expect(client("127.0.0.1", [("X-Forwarded-For", "evil, 10.0.0.3")]) == "10.0.0.3")
        #expect(client("127.0.0.1", [("X-Forwarded-For", "::ffff:203.0.113.9")]) == "203.0.113.9")
    }

    @Test func forwardedIsPreferredAndItsSyntaxRead() throws {
        let trusted = try proxies("127.0.0.1")
        func client(_ fields: [(String, String)]) -> String {
            trusted.clientAddress(peer: "127.0.0.1", headers: headers(fields))
        }
        #expect(client([("Forwarded", "for=192.0.2.60;proto=https;by=127.0.0.1")]) == "192.0.2.60")
        #expect(client([("Forwarded", #"for="[2001:db8:cafe::17]:4711""#)]) == "2001:db8:cafe::17")
        #expect(client([("Forwarded", "for=192.0.2.43:8080, for=198.51.100.17")]) == "198.51.100.17")
        #expect(client([("Forwarded", "for=_hidden")]) == "127.0.0.1")
        #expect(client([("Forwarded", "proto=https"), ("X-Forwarded-For", "203.0.113.9")]) == "127.0.0.1")
        #expect(client([("Forwarded", "for=192.0.2.60"), ("X-Forwarded-For", "203.0.113.9")]) == "192.0.2.60")
    }

    @Test func hostNamesAreComparedWithoutPortAndCase() {
        let allowed = HostAllowlist(["har.example.org", ".lan.example.org"])
        for host in [
            "har.example.org", "HAR.Example.org:443", "har.example.org.", "a.lan.example.org", "lan.example.org",
        ] {
            #expect(allowed.allows(host), "\(host)")
        }
        for host in ["example.org", "evil-har.example.org", "har.example.org.evil", "a b", "[::1", "h:99999", ""] {
            #expect(!allowed.allows(host), "\(host)")
        }
        // Only ASCII is a host name: the Kelvin sign (U+212A) lower-cases to "k" in Unicode, and must not
        // pass for it ("HAR.EXAMPLE.ORG" with a Kelvin sign is not an allowed name, nor "localhost").
        for host in ["\u{212A}.lan.example.org", "har.example.org:\u{0661}", "local\u{0130}host", "\u{212A}"] {
            #expect(!allowed.allows(host), "\(host)")
            #expect(HostAllowlist.hostName(host) == nil, "\(host)")
        }
        // Addresses and localhost always: no attacker's name can be one.
        for host in ["127.0.0.1:8080", "[::1]:8080", "192.168.1.20", "localhost", "LocalHost:80"] {
            #expect(HostAllowlist([]).allows(host), "\(host)")
        }
        #expect(HostAllowlist([]).allows(nil))
    }

    /// The quick reading of the usual fields never allows what the full reading refuses, and
    /// takes the usual forms itself; everything else is left to the full reading.
    @Test func theQuickReadingOfHostAgreesWithTheFullOne() {
        let lists = [
            HostAllowlist([]), HostAllowlist(["har.example.org", ".lan.example.org", "tablet-1", "10.0.0.1"]),
        ]
        var fields = [
            "127.0.0.1", "127.0.0.1:8080", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5",
            "1..3.4", ".1.2.3", "1.2.3.", "1.2.3.4:", "1.2.3.4:123456", "1.2.3.4:8a", "1.2.3.4:80:80", "0.0.0.00",
            "localhost", "LOCALHOST:1", "localhost.", "localhost:", "localhos", "localhostt", "har.example.org",
            "Har.Example.Org:443", "har.example.org.", "a.lan.example.org", "lan.example.org", ".lan.example.org",
            "tablet-1", "TABLET-1:8080", "tablet_1", "[::1]", "[::1]:80", "::1", ":80", "", ":", "\u{212A}",
            "har.example.org\u{0}", "l\u{0130}calhost", "10.0.0.1", "1.2.3.4 ",
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789.:[]-aLhoOstcl".utf8)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...16, using: &generator)
            fields.append(
                String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self))
        }
        for list in lists {
            for field in fields where list.plainlyAllows(field) {
                #expect(list.checkedAllows(field), "\(field) allowed by the quick reading only")
            }
        }
        for field in ["127.0.0.1", "192.168.1.20:8080", "0.0.0.0", "localhost", "LocalHost:80"] {
            #expect(lists[0].plainlyAllows(field), "\(field)")
        }
        for field in ["har.example.org", "HAR.example.org:443", "tablet-1:8080"] {
            #expect(lists[1].plainlyAllows(field), "\(field)")
        }
        // Read in full: brackets, a trailing dot, names under a dotted entry, and every refusal.
        for field in ["[::1]:8080", "har.example.org.", "a.lan.example.org", "01.2.3.4", "1.2.3.4:", "example.org"] {
            #expect(!lists[1].plainlyAllows(field), "\(field)")
        }
    }

    /// With no proxy trusted (the default), the peer is the client whatever the fields say.
    @Test func withNoProxyTrustedForwardingFieldsAreNotRead() {
        let fields = Headers([("X-Forwarded-For", "203.0.113.9"), ("Forwarded", "for=192.0.2.60")])
        #expect(TrustedProxies.none.clientAddress(peer: "127.0.0.1", headers: fields) == "127.0.0.1")
        #expect(TrustedProxies.none.clientAddress(peer: "::1", headers: fields) == "::1")
    }
}
