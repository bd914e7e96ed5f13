// Header names looked up without regard to ASCII case (RFC 9110 §5.1), and only ASCII case.
import Testing

@testable import HTTPServer

@Suite struct HeadersTests {
    @Test func namesMatchInAnyASCIICaseOnly() {
        let headers = Headers([
            ("content-TYPE", "text/plain"), ("X-Ünïcode", "a"), ("If-None-Match", "\"1\""), ("Host", "x"),
            ("Host", "second"),
        ])
        #expect(headers["Content-Type"] == "text/plain")
        #expect(headers["CONTENT-type"] == "text/plain")
        #expect(headers["if-none-match"] == "\"1\"")
        #expect(headers["HOST"] == "x")  // the first of two
        #expect(headers["X-Ünïcode"] == "a")
        #expect(headers["x-Ünïcode"] == "a")  // ASCII letters fold, the rest must be the same bytes
        #expect(headers["X-ünïcode"] == nil)
        #expect(headers["X-ÜNÏCODE"] == nil)
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Types"] == nil)
        // Bytes that differ by 0x20 but are not letters are different names ("[" and "{", "@" and "`").
        #expect(!Headers.namesEqual("X-[", "X-{"))
        #expect(!Headers.namesEqual("@", "`"))
        #expect(Headers.namesEqual("", ""))
        // Strings built at run time, and a name from a Substring, as the collector and handlers make them.
        let built = String(decoding: Array("if-NONE-match".utf8), as: UTF8.self)
        #expect(headers[built] == "\"1\"")
        #expect(headers[String("xHostx".dropFirst().dropLast())] == "x")
    }
}

@Suite struct SameBytesTests {
    /// `If-None-Match` against a handler's tag: the same bytes, never Unicode equivalence (the
    /// Kelvin sign is canonically "K" to `==`).
    @Test func comparesBytesNotCanonicalEquivalence() {
        #expect(Request.sameBytes("\"r-1a2b\"", "\"r-1a2b\""))
        #expect(Request.sameBytes("", ""))
        #expect(!Request.sameBytes("\"r-1a2b\"", "\"r-1a2c\""))
        #expect(!Request.sameBytes("\"r-1a2b\"", "\"r-1a2b"))
        #expect("\u{212A}" == "K")
        #expect(!Request.sameBytes("\u{212A}", "K"))
        #expect(!Request.sameBytes("é", "e\u{301}"))
        let built = String(decoding: Array("W/\"x\"".utf8), as: UTF8.self)
        #expect(Request.sameBytes(built, "W/\"x\""))
    }
}
