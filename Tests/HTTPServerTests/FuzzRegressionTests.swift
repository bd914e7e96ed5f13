// The fuzz harnesses' inputs as ordinary tests: every seed (Fuzz/corpus/NAME) and every input that ever
// made a harness fail (Fuzz/regressions/NAME, written there by scripts/fuzz) goes through the same code
// with the same checks as in Fuzz/Harnesses/NAME.swift, so a fixed finding stays fixed without libFuzzer.
import Foundation
import Glibc
import Testing

@testable import HTTPServer

@Suite struct HTTPServerFuzzRegressionTests {
    @Test func requestTargets() throws {
        let scratch = try ScratchDirectory()
        let base = scratch.path
        let secret = Array("SECRET-OUTSIDE-THE-STATIC-FOLDER".utf8)
        try FileManager.default.createDirectory(atPath: base + "/public/css", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: base + "/secret.txt", contents: Data(secret)))
        #expect(FileManager.default.createFile(atPath: base + "/public/app.css", contents: Data("body{}".utf8)))
        #expect(FileManager.default.createFile(atPath: base + "/public/css/site.css", contents: Data("p{}".utf8)))
        try FileManager.default.createSymbolicLink(
            atPath: base + "/public/link.txt", withDestinationPath: base + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: base + "/public/up", withDestinationPath: base)
        let files = StaticFiles(directory: base + "/public", cacheControl: "no-cache")
        var router = Router()
        let answer: InlineHandler = { _ in Response(status: 200) }
        for pattern in ["/", "/report/:id", "/report/:id/photo/:photo", "/files/*path", "/static/*path"] {
            router.getInline(pattern, answer)
        }

        let inputs = try fuzzInputs("http-path")
        #expect(inputs.count >= 10)
        var served = 0
        for (file, bytes) in inputs {
            let uri = bytes.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
            let rawPath = String(decoding: uri.first ?? [], as: UTF8.self)
            let query = uri.count > 1 ? Decoding.query(Substring(String(decoding: uri[1], as: UTF8.self))) : []
            #expect(
                query.allSatisfy { !$0.name.isEmpty && !$0.name.utf8.contains(0) && !$0.value.utf8.contains(0) },
                "\(file)")
            guard let path = Decoding.path(rawPath) else { continue }
            #expect(path.utf8.first == UInt8(ascii: "/") && !path.utf8.contains(0), "\(file)")
            guard case .found(_, let parameters) = router.match(method: "GET", path: path) else { continue }
            for name in ["id", "photo"] {
                if let value = parameters[name] { #expect(!value.isEmpty && !value.contains("/"), "\(file)") }
            }
            if let rest = parameters["path"] {
                #expect(rest.utf8.first != UInt8(ascii: "/") && rest.utf8.last != UInt8(ascii: "/"), "\(file)")
                #expect(!Array(rest.utf8).contains(subsequence: Array("//".utf8)), "\(file)")
            }
            guard path.utf8.starts(with: "/static".utf8),
                let response = try? files.respond(
                    to: Request(method: "GET", path: path, rawPath: rawPath, parameters: parameters))
            else { continue }
            served += 1
            if case .bytes(let body) = response.body { #expect(body != secret, "\(file) served the outside file") }
        }
        #expect(served >= 2)  // the seeds include files that are there to serve
    }

    /// Found by fuzzing ("/%cc%a9": a combining mark after the first slash), which showed that String's
    /// hasPrefix compares characters, under canonical equivalence, not bytes. The static files' "is the
    /// real path under the folder" check did so too: with the folder under "café" (precomposed) and a
    /// symlink into a sibling "cafe\u{301}" (decomposed), a file outside the folder was served.
    @Test func staticFolderPrefixIsComparedByBytes() throws {
        let scratch = try ScratchDirectory()
        let composed = scratch.path + "/caf\u{E9}"
        let decomposed = scratch.path + "/cafe\u{301}"
        try FileManager.default.createDirectory(atPath: composed + "/public", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: decomposed + "/public", withIntermediateDirectories: true)
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        #expect(
            FileManager.default.createFile(atPath: decomposed + "/public/secret.txt", contents: Data("SECRET".utf8)))
        #expect(FileManager.default.createFile(atPath: composed + "/public/app.css", contents: Data("body{}".utf8)))
        try FileManager.default.createSymbolicLink(
            atPath: composed + "/public/link.txt", withDestinationPath: decomposed + "/public/secret.txt")
        let files = StaticFiles(directory: composed + "/public", cacheControl: "no-cache")
        func get(_ name: String) -> Response? {
            try? files.respond(
                to: Request(method: "GET", path: "/static/" + name, parameters: ["path": name]))
        }
        #expect(get("app.css") != nil)
        #expect(get("link.txt") == nil)
        #expect(Decoding.path("/%cc%a9") == "/\u{329}")
        #expect(Decoding.path("/\u{329}") == "/\u{329}")  // the same path sent unencoded
    }

    @Test func headerValues() throws {
        let inputs = try fuzzInputs("http-headers")
        #expect(inputs.count >= 5)
        for (file, bytes) in inputs {
            let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            let value = String(decoding: bytes[..<newline], as: UTF8.self)
            let name = newline < bytes.endIndex ? String(decoding: bytes[(newline + 1)...], as: UTF8.self) : ""
            let cookies = Decoding.cookies(value)
            #expect(cookies.count <= 64, "\(file)")
            for (cookie, content) in cookies {
                #expect(!cookie.isEmpty && cookie.utf8.allSatisfy(Decoding.isTokenByte), "\(file)")
                #expect(content.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x3B && $0 != 0x2C }, "\(file)")
            }
            _ = BodyReader.boundary(value)
            _ = Conditional.noneMatchFails(value, tag: "\"1f-5f5e1000\"")
            if Decoding.isSafeHeaderValue(value) { #expect(!value.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }) }
            if name.utf8.allSatisfy({ $0 < 0x80 }), value.utf8.allSatisfy({ $0 < 0x80 }) {
                #expect(Headers.namesEqual(name, value) == (name.lowercased() == value.lowercased()), "\(file)")
            }
        }
    }

    /// Each body through the real server on a loopback socket, with the harness's limits and routes.
    @Test func requestBodies() throws {
        let limits = ServerLimits(
            maxBodyBytes: 256 << 10, maxFileBytes: 64 << 10, maxFiles: 3, idleTimeoutSeconds: 1,
            maxInMemoryBodyBytes: 32 << 10)
        let server = try TestServer(limits: limits) { router, _ in
            // Answers whether the limits held, with the spooled copy (or a body that is not a form) to compare.
            let check: InlineHandler = { request in
                let withinLimits =
                    request.files.count <= limits.maxFiles && request.body.count <= limits.maxInMemoryBodyBytes
                    && request.files.allSatisfy { file in
                        var info = stat()
                        return file.size <= limits.maxFileBytes && stat(file.path, &info) == 0
                            && Int(info.st_size) == file.size
                    }
                var response = Response(status: 200)
                response.headers.add("X-Within", withinLimits ? "yes" : "no")
                if let spooled = request.rawBodyPath {
                    response.body = .bytes(Array(FileManager.default.contents(atPath: spooled) ?? Data("MISSING".utf8)))
                } else {
                    response.body = .bytes(request.body)
                }
                return response
            }
            // Raw requests: what the decoders gave a handler still keeps their rules.
            router.getInline("/echo/*rest") { request in
                let kept =
                    request.cookies.allSatisfy { cookie in
                        cookie.key.utf8.allSatisfy(Decoding.isTokenByte)
                            && cookie.value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
                    } && request.query.allSatisfy { !$0.name.isEmpty } && !request.path.utf8.contains(0)
                return Response.text(kept ? "kept" : "BROKEN")
            }
            router.postInline("/form", check)
            router.postInline("/signed", options: RouteOptions(spoolRawBody: true), check)
        }
        defer { server.stop() }
        let bodies = try fuzzInputs("http-body")
        let requests = try fuzzInputs("http-request")
        #expect(bodies.count >= 5 && requests.count >= 5)
        var accepted = 0
        let inputs = bodies.map { ($0.file, $0.bytes, false) } + requests.map { ($0.file, $0.bytes, true) }
        for (file, bytes, isRaw) in inputs {
            if isRaw {
                // A raw request, "Connection: close" after its first line, the sending side shut after it.
                var raw = bytes
                if let newline = raw.firstIndex(of: UInt8(ascii: "\n")) {
                    raw.insert(contentsOf: Array("Connection: close\r\n".utf8), at: newline + 1)
                }
                let answer = try exchangeHalfClosed(port: server.port, raw)
                #expect(answer.isEmpty || answer.starts(with: Array("HTTP/1.1 ".utf8)), "\(file)")
                #expect(!String(decoding: answer, as: UTF8.self).contains("BROKEN"), "\(file)")
                continue
            }
            let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var typeLine = Array(bytes[..<newline]).filter { $0 != 13 && $0 != 0 }
            let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
            var route = "/form"
            if typeLine.first == UInt8(ascii: "!") {
                route = "/signed"
                typeLine.removeFirst()
            }
            let connection = try RawConnection(port: server.port)
            try connection.send(
                Array("POST \(route) HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\nContent-Type: ".utf8) + typeLine
                    + Array("\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            let response = try connection.readResponse()
            #expect([200, 400, 413].contains(response.status), "\(file)")
            if response.status == 200 {
                #expect(response.header("X-Within") == "yes", "\(file)")
                let type = String(decoding: typeLine, as: UTF8.self).lowercased().drop { $0 == " " || $0 == "\t" }
                let isForm =
                    type.hasPrefix("multipart/form-data") || type.hasPrefix("application/x-www-form-urlencoded")
                if route == "/signed" || !isForm { #expect(response.body == body, "\(file)") }
                accepted += 1
            }
        }
        #expect(accepted >= 3)  // the seeds include well-formed multipart, urlencoded and JSON bodies
    }
}

/// Sends `bytes`, shuts the sending side and reads until the server closes (the server's idle timeout
/// bounds the wait; a read timeout of 15 s fails the test).
func exchangeHalfClosed(port: Int, _ bytes: [UInt8]) throws -> [UInt8] {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 15, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw TestFailure("connect failed: errno \(errno)") }
    var sent = 0
    while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }  // the server may refuse and close before reading everything
        sent += count
    }
    shutdown(fd, Int32(SHUT_WR))
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 && errno == EINTR { continue }
        if count < 0 && errno == EAGAIN { throw TestFailure("the server neither answered nor closed in 15 s") }
        if count <= 0 { return answer }
        answer += buffer[..<count]
    }
}
