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

/// Fields as received (`Headers.addReceived`, the header collector): kept as bytes, made Strings
/// when looked up, in order before any added later.
@Suite struct ReceivedHeadersTests {
    static func received(_ fields: [(String, String)]) -> Headers {
        var headers = Headers(capacity: 2)  // grown past its room
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { value in headers.addReceived(name: name, value: value) }
            }
        }
        return headers
    }

    @Test func lookedUpAsTheStringFieldsAre() {
        var headers = Self.received([
            ("content-TYPE", "text/plain"), ("X-Ünïcode", "a"), ("If-None-Match", "\"1\""), ("Host", "x"),
            ("Host", "second"), ("Empty", ""), ("Cookie", String(repeating: "c=1; ", count: 40)),
        ])
        #expect(headers["Content-Type"] == "text/plain")
        #expect(headers["if-none-match"] == "\"1\"")
        #expect(headers["HOST"] == "x")
        #expect(headers.values("host") == ["x", "second"])
        #expect(headers["x-Ünïcode"] == "a")
        #expect(headers["X-ünïcode"] == nil)
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Empty"] == "")
        #expect(headers["Cookie"]?.utf8.count == 200)
        #expect(headers[String(decoding: Array("COOKIE".utf8), as: UTF8.self)] != nil)
        #expect(headers.anyName(startingWith: "iI"))
        #expect(!headers.anyName(startingWith: "rR"))
        headers.add("Host", "added")
        headers.add("Range", "bytes=0-1")
        #expect(headers.values("Host") == ["x", "second", "added"])
        #expect(headers["Range"] == "bytes=0-1")
        #expect(headers.anyName(startingWith: "rR"))
        #expect(headers.count == 9)
        let fields = headers.fields
        #expect(
            fields.map(\.name) == [
                "content-TYPE", "X-Ünïcode", "If-None-Match", "Host", "Host", "Empty", "Cookie", "Host", "Range",
            ])
        #expect(Array(headers).map(\.value)[3...4] == ["x", "second"])
        let framing = headers.framingFields()
        #expect(framing.hosts == 3 && framing.host == "added" && framing.lengths == 0 && framing.codings.isEmpty)
    }

    /// Host, Content-Length and Transfer-Encoding as `RequestFraming.checkFields` judges them, the
    /// same whether the fields were received or given as Strings.
    @Test func framingFieldsAsReceived() {
        let fields = [
            ("host", "a"), ("Content-Length", "5"), ("transfer-encoding", "gzip"), ("Transfer-Encoding", "chunked"),
            ("Content-Length", "6"),
        ]
        let framing = Self.received(fields).framingFields()
        #expect(framing.hosts == 1 && framing.host == "a")
        #expect(framing.lengths == 2 && framing.length == "6")
        #expect(framing.codings == ["gzip", "chunked"])
        for isHTTP10 in [false, true] {
            #expect(
                RequestFraming.checkFields(Self.received(fields), isHTTP10: isHTTP10)
                    == RequestFraming.checkFields(Headers(fields), isHTTP10: isHTTP10))
        }
        #expect(
            RequestFraming.checkFields(Self.received([("Host", "a"), ("HOST", "b")]), isHTTP10: false) == .repeatedHost)
        #expect(RequestFraming.checkFields(Self.received([("Accept", "*/*")]), isHTTP10: false) == .missingHost)
        #expect(RequestFraming.checkFields(Self.received([("Host", "a b")]), isHTTP10: false) == .invalidHost)
        #expect(RequestFraming.checkFields(Self.received([("Host", "a")]), isHTTP10: false) == nil)
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
