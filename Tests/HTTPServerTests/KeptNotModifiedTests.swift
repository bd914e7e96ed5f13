// A handler's 304 sent from an MHD response kept under its fields (`KeptNotModified`): the same
// bytes as a 304 built for the request, security headers included, and only for 304s made of
// validator fields.
import Testing

@testable import HTTPServer

@Suite struct KeptNotModifiedTests {
    static func makeServer() throws -> TestServer {
        try TestServer { router, _ in
            router.getInline("/tagged") { request in
                let tag = "\"" + (request.queryValue("v") ?? "") + "\""
                if let answer = request.notModified(tag: tag, headers: Headers([("Cache-Control", "no-cache")])) {
                    return answer
                }
                return Response.text("full")
            }
            router.getInline("/cookie") { request in
                guard var answer = request.notModified(tag: "\"1\"", headers: Headers([("Cache-Control", "no-cache")]))
                else { return Response.text("full") }
                answer.setCookie(SetCookie(name: "n", value: "v"))
                return answer
            }
        }
    }

    /// The head without Date, which MHD adds per send.
    static func fields(_ response: RawResponse) -> [String] {
        response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name): \($0.value)" }
    }

    @Test func aKeptAnswerIsTheAnswerThatWouldBeBuilt() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let kept = server.server.keptNotModified
        try await blocking {
            let first = try get(port, "/tagged?v=1", headers: ["If-None-Match: \"1\""])
            let second = try get(port, "/tagged?v=1", headers: ["If-None-Match: \"1\""])
            #expect(first.status == 304 && second.status == 304)
            #expect(Self.fields(first) == Self.fields(second))
            #expect(kept.count == 1)
            // Built for its request (a cookie is never kept): the same fields but the cookie.
            let built = try get(port, "/cookie", headers: ["If-None-Match: \"1\""])
            #expect(built.status == 304)
            #expect(built.header("Set-Cookie") != nil)
            #expect(Self.fields(built).filter { !$0.hasPrefix("Set-Cookie:") } == Self.fields(first))
            #expect(kept.count == 1)
            #expect(first.header("ETag") == "\"1\"")
            #expect(first.header("Vary") == "Accept-Encoding")
            #expect(first.header("Cache-Control") == "no-cache")
            for (name, value) in ServerConfiguration.defaultSecurityHeaders {
                #expect(first.header(name) == value)
            }
            // Another tag is another answer; a tag that no longer matches is answered in full.
            let other = try get(port, "/tagged?v=2", headers: ["If-None-Match: \"2\""])
            #expect(other.header("ETag") == "\"2\"")
            #expect(kept.count == 2)
            #expect(try get(port, "/tagged?v=3", headers: ["If-None-Match: \"1\""]).status == 200)
        }
    }

    @Test func onlyValidatorFieldsAreKeptAndTheStoreIsBounded() {
        var fields = [(name: "ETag", value: "\"1\""), (name: "Cache-Control", value: "no-cache")]
        #expect(KeptNotModified.tag(of: fields) == "\"1\"")
        #expect(KeptNotModified.tag(of: [(name: "Cache-Control", value: "no-cache")]) == nil)  // no tag
        fields.append((name: "X-Other", value: "1"))
        #expect(KeptNotModified.tag(of: fields) == nil)
        #expect(KeptNotModified.tag(of: [(name: "Set-Cookie", value: "a=b"), (name: "ETag", value: "\"1\"")]) == nil)
        // Unsafe values would be dropped from what is sent.
        #expect(KeptNotModified.tag(of: [(name: "ETag", value: "\"1\r\nX: y\"")]) == nil)
        #expect(KeptNotModified.same([("ETag", "\"1\""), ("Vary", "a")], [("ETag", "\"1\""), ("Vary", "a")]))
        #expect(!KeptNotModified.same([("ETag", "\"1\""), ("Vary", "a")], [("ETag", "\"1\""), ("Vary", "b")]))
        #expect(!KeptNotModified.same([("ETag", "\"1\""), ("Vary", "a")], [("Vary", "a"), ("ETag", "\"1\"")]))
        #expect(!KeptNotModified.same([("ETag", "\"1\"")], [("ETag", "\"1\""), ("Vary", "a")]))

        let kept = KeptNotModified(limit: 2)
        func notModified(_ tag: String) -> Response { Response(status: 304, headers: Headers([("ETag", tag)])) }
        let one = kept.reusable(for: notModified("\"1\""))
        #expect(one != nil && kept.reusable(for: notModified("\"1\"")) === one)
        _ = kept.reusable(for: notModified("\"2\""))
        #expect(kept.count == 2)
        _ = kept.reusable(for: notModified("\"3\""))
        #expect(kept.count == 1)  // all dropped when full, then the new one
        // The same tag with other fields: kept instead of the first, never given for it.
        let vary = Response(status: 304, headers: Headers([("ETag", "\"3\""), ("Vary", "Accept-Encoding")]))
        let withVary = kept.reusable(for: vary)
        #expect(withVary != nil && withVary !== kept.reusable(for: notModified("\"3\"")))
        #expect(kept.reusable(for: Response(status: 200, headers: Headers([("ETag", "\"1\"")]))) == nil)
        #expect(
            kept.reusable(for: Response(status: 304, headers: Headers([("ETag", "\"1\"")]), body: .bytes([1]))) == nil)
    }
}
