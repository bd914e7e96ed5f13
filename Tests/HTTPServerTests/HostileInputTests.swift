import Foundation
import Testing

@testable import HTTPServer

@Suite struct HostileInputTests {
    static func makeServer() throws -> TestServer {
        try TestServer { router, _ in
            // Echoes a request header into a response header: the classic response-splitting setup.
            router.getInline("/echo") { request in
                var response = Response.text(
                    "cookies=\(request.cookies.count) session=\(request.cookies["session"] ?? "-")")
                response.headers.add("X-Echo", request.headers["X-Input"] ?? "")
                response.headers.add("X-Injected", "a\r\nSet-Cookie: evil=1")
                return response
            }
        }
    }

    @Test func hostileHeadersAndCookiesNeitherCrashNorSplit() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let inputs = [
            "X-Input: " + String(repeating: "A", count: 6000),
            "X-Input: ünïcödé ✓ \u{1F600}",
            "X-Input: value%0d%0aSet-Cookie: evil=1",
            "Cookie: session=abc; session=second; =novalue; noequals; a==b; ;;; c=\"quoted\"",
            "Cookie: " + String(repeating: "x=1; ", count: 500),
            "Cookie: session=a\u{1}b; other=ok",
            "Cookie: session=\"unterminated; x=1",
            "X-Input: a\u{0}b",
        ]
        let responses = try await blocking {
            try inputs.map { header -> RawResponse? in
                let connection = try RawConnection(port: port)
                try connection.send("GET /echo HTTP/1.1\r\nHost: x\r\n\(header)\r\nConnection: close\r\n\r\n")
                return try? connection.readResponse()
            }
        }
        for (input, response) in zip(inputs, responses) {
            guard let response else { continue }  // MHD may refuse outright (NUL, oversized): also fine
            #expect(response.status == 200 || response.status == 400 || response.status == 431, "\(input.prefix(40))")
            #expect(response.headers(named: "Set-Cookie").isEmpty, "split by \(input.prefix(40))")
            #expect(response.header("X-Injected") == nil)
        }
        #expect(responses[3]?.text == "cookies=3 session=abc")
        // Still alive and answering.
        let after = try await blocking { try get(port, "/echo", headers: ["X-Input: plain"]) }
        #expect(after.status == 200)
        #expect(after.header("X-Echo") == "plain")
    }

    /// Hostile bytes straight at the decoder: no crash, and control characters never survive.
    @Test func cookieParsingIsRobust() {
        #expect(Decoding.cookies("a=1; b=2") == ["a": "1", "b": "2"])
        #expect(Decoding.cookies("a=1; a=2")["a"] == "1")
        #expect(Decoding.cookies("a=\"q\"")["a"] == "q")
        #expect(Decoding.cookies("a=x\r\ny=1")["a"] == nil)
        #expect(Decoding.cookies("bad name=1; ok=2") == ["ok": "2"])
        #expect(Decoding.cookies("=1; ;; =; x") == [:])
        #expect(Decoding.cookies(String(repeating: ";=", count: 10000)).isEmpty)
        // One cookie found without the dictionary gives what the dictionary has, for each name.
        let headers = [
            "a=1; b=2", "a=1; a=2", "a=\"q\"", "a=x\r\ny=1", "bad name=1; ok=2", "=1; ;; =; x", " a = 1 ;b=\"\"",
            "session=x y; session=ok", "ab=1; a=2", "a=1;" + String(repeating: "z=2;", count: 70) + "late=3",
        ]
        for header in headers {
            let all = Decoding.cookies(header)
            for name in ["a", "b", "ok", "bad name", "session", "ab", "z", "y", ""] {
                #expect(Decoding.cookie(name, in: header) == all[name], "\(name) in \(header)")
            }
        }
        // The dictionary keeps the first 64 items; one cookie is found anywhere.
        let long = "a=1;" + String(repeating: "z=2;", count: 70) + "late=3"
        #expect(Decoding.cookies(long)["late"] == nil && Decoding.cookie("late", in: long) == "3")
        #expect(Decoding.cookie("a", in: nil) == nil)
        let request = Request(method: "GET", path: "/", headers: Headers([("Cookie", "har_session=abc; lang=fr")]))
        #expect(request.cookie("lang") == "fr" && request.cookie("har_session") == "abc" && request.cookie("x") == nil)
        #expect(request.cookies == ["har_session": "abc", "lang": "fr"])
        #expect(!Decoding.isSafeHeaderValue("a\rb"))
        #expect(!Decoding.isSafeHeaderValue("a\nb"))
        #expect(Decoding.isSafeHeaderValue("a\tb ü"))
    }
}

@Suite struct MultipartFuzzTests {
    /// (MHD refuses boundaries shorter than two characters; that is a 400 too.)
    /// Mangled multipart bodies (cut, bytes flipped, headers garbled): every one gets an answer, the
    /// pool keeps serving, and no temporary file or descriptor stays behind.
    @Test func mangledMultipartBodiesAreAnsweredAndCleanedUp() async throws {
        let server = try TestServer { router, _ in
            router.post("/up") { request in .text("files=\(request.files.count) fields=\(request.formFields.count)") }
        }
        defer { server.stop() }
        let port = server.port
        let valid = Array(
            ("--Bnd42\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nvalue\r\n"
                + "--Bnd42\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                + String(repeating: "z", count: 3000) + "\r\n--Bnd42--\r\n").utf8)
        var generator = SystemRandomNumberGenerator()
        var bodies: [[UInt8]] = [valid]
        for round in 0..<60 {
            var body = valid
            switch round % 3 {
            case 0: body = Array(body.prefix(Int.random(in: 0..<body.count, using: &generator)))
            case 1:
                for _ in 0..<8 {
                    body[Int.random(in: 0..<body.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            default:
                body.insert(
                    contentsOf: Array("\r\n--Bnd42\r\n\"\";=".utf8),
                    at: Int.random(in: 0..<body.count, using: &generator))
            }
            bodies.append(body)
        }
        let allBodies = bodies
        let statuses = try await blocking {
            try allBodies.map { body -> Int in
                let connection = try RawConnection(port: port)
                try connection.send(
                    "POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=Bnd42\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                )
                try connection.send(body)
                return (try? connection.readResponse().status) ?? -1
            }
        }
        #expect(statuses[0] == 200, "\(server.log.errors)")
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 400 || $0 == 413 }, "\(statuses)")
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }
}
