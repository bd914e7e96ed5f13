import Foundation
import Testing

@testable import HTTPServer

@Suite struct RoutingTests {
    static func makeServer() throws -> TestServer {
        try TestServer { router, _ in
            router.getInline("/hello") { _ in .text("hello") }
            router.get("/async/:name") { request in .text("hi \(request.parameters["name"] ?? "")") }
            router.post("/items") { request in .text("posted \(request.formValue("a") ?? "")") }
            router.get("/boom") { _ in throw TestFailure("secret database password xyz") }
            router.getInline("/files/*rest") { request in .text("rest=\(request.parameters["rest"] ?? "")") }
            router.getInline("/query") { request in .text("q=\(request.queryValue("q") ?? "")") }
            router.post("/json") { request in .json(request.body) }
        }
    }

    @Test func keepAliveAnswersTwoRequestsOnOneConnection() async throws {
        try await blocking {
            let server = try Self.makeServer()
            defer { server.stop() }
            let connection = try RawConnection(port: server.port)
            let first = try connection.request("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(first.status == 200)
            #expect(first.text == "hello")
            #expect(first.header("Connection")?.lowercased() != "close")
            let second = try connection.request("GET /async/ada HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(second.status == 200)
            #expect(second.text == "hi ada")
            #expect(second.header("Connection")?.lowercased() != "close")
            let third = try connection.request("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(third.status == 404)
            #expect(third.header("Connection")?.lowercased() != "close")
        }
    }

    @Test func routesParametersRestAndQuery() async throws {
        try await blocking {
            let server = try Self.makeServer()
            defer { server.stop() }
            #expect(try get(server.port, "/files/a/b/c.txt").text == "rest=a/b/c.txt")
            #expect(try get(server.port, "/query?q=a%20b+c&x=1").text == "q=a b c")
            let posted = try curlStatus(["-d", "a=x%26y", "http://127.0.0.1:\(server.port)/items"])
            #expect(posted.status == 200)
            #expect(posted.body == "posted x&y")
            let json = try curlStatus([
                "-H", "Content-Type: application/json", "-d", "{\"k\":1}",
                "http://127.0.0.1:\(server.port)/json",
            ])
            #expect(json.body == "{\"k\":1}")
        }
    }

    @Test func notFoundMethodNotAllowedAndServerError() async throws {
        try await blocking {
            let server = try Self.makeServer()
            defer { server.stop() }
            let missing = try get(server.port, "/missing")
            #expect(missing.status == 404)
            let connection = try RawConnection(port: server.port)
            let wrongMethod = try connection.request("DELETE /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow")?.contains("GET") == true)
            let failure = try get(server.port, "/boom")
            #expect(failure.status == 500)
            #expect(!failure.text.contains("secret"))
            #expect(server.log.errors.contains { $0.contains("secret database password") })
            for response in [missing, wrongMethod, failure] {
                for name in securityHeaderNames {
                    #expect(response.header(name) != nil, "\(name) on \(response.status)")
                }
            }
            let ok = try get(server.port, "/hello")
            for name in securityHeaderNames { #expect(ok.header(name) != nil) }
            #expect(ok.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        }
    }

    @Test func headIsAnsweredByGetRoutes() async throws {
        try await blocking {
            let server = try Self.makeServer()
            defer { server.stop() }
            let connection = try RawConnection(port: server.port)
            let head = try connection.request("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n", toHead: true)
            #expect(head.status == 200)
            let after = try connection.request("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(after.text == "hello")
        }
    }

    @Test func badPathsAreRefused() async throws {
        try await blocking {
            let server = try Self.makeServer()
            defer { server.stop() }
            #expect(try get(server.port, "/hello%00").status == 400)
            #expect(try get(server.port, "/hello%ff%fe").status == 400)
            #expect(try get(server.port, "/hello%zz").status == 400)
        }
    }

    @Test func accessLogHasNoQueryAndOneEntryPerRequest() async throws {
        try await blocking {
            let server = try Self.makeServer()
            defer { server.stop() }
            _ = try get(server.port, "/query?q=secret")
            _ = try get(server.port, "/hello")
            server.server.stop(gracePeriod: 1)
            let entries = server.log.entries
            #expect(entries.count == 2)
            #expect(entries.contains { $0.path == "/query" && $0.status == 200 && $0.method == "GET" })
            #expect(!entries.contains { $0.path.contains("secret") })
        }
    }

    @Test func routerMatching() {
        var router = Router()
        router.get("/har/report/:id/photo") { _ in .text("") }
        router.postInline("/har/report/:id/photo") { _ in .text("") }
        router.getInline("/static/*path") { _ in .text("") }
        if case .found(_, let parameters) = router.match(method: "GET", path: "/har/report/42/photo") {
            #expect(parameters["id"] == "42")
        } else {
            Issue.record("no match")
        }
        if case .methodNotAllowed(let allowed) = router.match(method: "PUT", path: "/har/report/42/photo") {
            #expect(allowed.contains("POST") && allowed.contains("GET"))
        } else {
            Issue.record("expected 405")
        }
        if case .notFound = router.match(method: "GET", path: "/har/report/42") {} else { Issue.record("expected 404") }
        if case .found(_, let parameters) = router.match(method: "GET", path: "/static") {
            #expect(parameters["path"] == "")
        } else {
            Issue.record("rest should match empty")
        }
    }

    /// Literal paths are routed by a table: the answer must be the walk's, in the order the
    /// routes were added, whichever kind came first, for clean and unclean spellings of a path alike.
    @Test func literalPathsRouteAsTheWalkDid() {
        var router = Router()
        router.get("/a/:x") { _ in .text("") }
        router.getInline("/a/b") { _ in .text("") }
        router.postInline("/a/b") { _ in .text("") }
        router.getInline("/c") { _ in .text("") }
        router.put("/*any") { _ in .text("") }
        router.getInline("/") { _ in .text("") }
        func found(_ method: String, _ path: String) -> (pattern: String, parameters: PathParameters)? {
            if case .found(let route, let parameters) = router.match(method: method, path: path) {
                return (route.pattern, parameters)
            }
            return nil
        }
        // The parameter route was added first, so it still wins over the literal one.
        for path in ["/a/b", "/a//b/", "a/b"] {
            #expect(found("GET", path)?.pattern == "/a/:x")
            #expect(found("GET", path)?.parameters == ["x": "b"])
            #expect(found("HEAD", path)?.pattern == "/a/:x")
            #expect(found("POST", path)?.pattern == "/a/b")
            // A rest route added later is matched too.
            #expect(found("PUT", path)?.parameters == ["any": "a/b"])
        }
        #expect(found("GET", "/c")?.pattern == "/c")
        #expect(found("PUT", "/c")?.pattern == "/*any")
        #expect(found("GET", "/")?.pattern == "/")
        #expect(found("PUT", "/")?.parameters == ["any": ""])
        if case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/a/b") {
            #expect(allowed == ["GET", "POST", "PUT", "HEAD"])
        } else {
            Issue.record("expected 405")
        }
        if case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/zz") {
            #expect(allowed == ["PUT"])
        } else {
            Issue.record("expected 405")
        }
        // Not ASCII: walked as before (and canonically equivalent spellings still match).
        router.getInline("/caf\u{E9}") { _ in .text("") }
        #expect(found("GET", "/cafe\u{301}")?.pattern == "/caf\u{E9}")
    }

    /// Routing over the path's bytes keeps the Strings' rules: canonically equivalent
    /// segments match, ASCII ones only byte for byte, captured values come out whole, and a rest is its
    /// non-empty segments joined by single slashes.
    @Test func segmentsAreMatchedAsStringsCompare() {
        var router = Router()
        router.getInline("/caf\u{E9}/:x/*rest") { _ in .text("") }
        router.getInline("/K/:id") { _ in .text("") }
        router.getInline("/\u{212A}x/:id") { _ in .text("") }  // a literal past ASCII, asked for in ASCII
        func found(_ path: String) -> PathParameters? {
            if case .found(_, let parameters) = router.match(method: "GET", path: path) { return parameters }
            return nil
        }
        #expect(found("/cafe\u{301}/\u{E9}t\u{E9}//a//b/") == ["x": "\u{E9}t\u{E9}", "rest": "a/b"])
        #expect(found("//caf\u{E9}/1") == ["x": "1", "rest": ""])
        #expect(found("/cafe/1/2") == nil)
        #expect(found("/K/7/") == ["id": "7"])
        #expect(found("/\u{212A}/7") == ["id": "7"])  // KELVIN SIGN is canonically "K"
        #expect(found("/k/7") == nil && found("/K") == nil && found("/K/7/8") == nil)
        #expect(found("/Kx/8") == ["id": "8"] && found("/kx/8") == nil)
    }

    /// A route's parameters read and written as a dictionary's (the router keeps them as pairs).
    @Test func pathParametersBehaveAsADictionary() {
        var parameters = PathParameters()
        #expect(parameters.isEmpty && parameters["id"] == nil)
        parameters["id"] = "r1"
        parameters["photo"] = "p1"
        parameters["id"] = "r2"  // replaced, not added
        #expect(parameters.count == 2 && parameters["id"] == "r2" && parameters["photo"] == "p1")
        #expect(parameters == ["photo": "p1", "id": "r2"])  // in any order
        #expect(parameters != ["photo": "p1", "id": "r1"] && parameters != ["id": "r2"])
        parameters["photo"] = nil
        #expect(parameters == ["id": "r2"] && parameters.count == 1)
        // A pattern naming one parameter twice keeps the last, as the dictionary did.
        var router = Router()
        router.getInline("/a/:x/:x") { _ in .text("") }
        if case .found(_, let found) = router.match(method: "GET", path: "/a/1/2") {
            #expect(found == ["x": "2"])
        } else {
            Issue.record("expected a match")
        }
    }

    /// A path with nothing to decode is taken as it is; the answer is the full decoding's.
    @Test func aPathWithoutEscapesDecodesAsTheFullDecodingDoes() {
        var paths = [
            "/", "/static/css/app.css", "/a%2Fb", "/a%zz", "/%00", "/a b", "/\u{7F}", "/caf\u{E9}", "/+",
            "/~!$&'()*,;=",
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array("/aZ9.%2fF0+ ~".utf8) + [0, 0x09, 0x7F, 0xC3, 0xA9, 0xFF]
        for _ in 0..<3000 {
            let bytes =
                [UInt8(ascii: "/")]
                + (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                }
            paths.append(String(decoding: bytes, as: UTF8.self))
        }
        for path in paths {
            let full = Decoding.percentDecoded(path.utf8, plusAsSpace: false).flatMap(Decoding.strictString)
            #expect(Decoding.path(path) == full, "\(Array(path.utf8))")
        }
    }
}
