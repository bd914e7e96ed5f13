import Foundation
import Testing

@testable import HTTPServer

/// Gzip for pages and JSON built per request, gzip and brotli for static assets, with
/// `Vary: Accept-Encoding` and an ETag per encoding, and conditional requests kept right.
@Suite struct CompressionTests {
    /// Text that compresses like a page does: repeated markup with varying numbers.
    static let page: String = (0..<200).map { "<li class=\"row\" data-id=\"\($0)\">Report number \($0)</li>\n" }
        .joined()

    @Test func gzipAndBrotliRoundTrip() throws {
        let bytes = Array(Self.page.utf8)
        let gzip = try #require(Compression.gzip(bytes, level: 6))
        #expect(gzip.count < bytes.count / 4)
        #expect(gzip.prefix(2) == [0x1f, 0x8b])
        #expect(Compression.gunzip(gzip) == bytes)
        let brotli = try #require(Compression.brotli(bytes, quality: 11))
        #expect(brotli.count < gzip.count)
        #expect(Compression.unbrotli(brotli) == bytes)
        #expect(Compression.gunzip(Array(gzip.dropLast(4))) == nil)
        #expect(Compression.gunzip(Array("not gzip".utf8)) == nil)
        #expect(Compression.gzip([], level: 6).flatMap { Compression.gunzip($0) } == [])
    }

    /// What is kept compressed (the static files' forms, the kept list's parts) holds about its own
    /// size, not the encoder's worst case of about the input's: the memory bounds counted in bytes
    /// written hold, and 8 KB of gzip does not keep a 61 KB buffer.
    @Test func compressedFormsAreKeptInBuffersOfTheirOwnSize() throws {
        let bytes = Array(Self.page.utf8)
        let gzip = try #require(Compression.gzip(bytes, level: 9))
        let brotli = try #require(Compression.brotli(bytes, quality: 11))
        for form in [gzip, brotli] {
            #expect(form.count < bytes.count / 4)
            #expect(form.capacity <= form.count + max(512, form.count / 8))
        }
        // Already about its size: not copied; the bytes are the same either way.
        let small = [UInt8](repeating: 7, count: 100)
        #expect(Compression.fitted(small) == small)
        var roomy = [UInt8](repeating: 1, count: 3000)
        roomy.reserveCapacity(64 * 1024)
        let fitted = Compression.fitted(roomy)
        #expect(fitted == roomy)
        #expect(fitted.capacity < 4096)
    }

    @Test func compressibleTypesAreRecognizedInAnyCaseWithParameters() {
        for type in [
            "text/html; charset=utf-8", "Text/CSS", " text/plain ;q=1", "application/json", "APPLICATION/JSON",
            "application/ld+json; charset=utf-8", "application/javascript", "image/svg+xml", "\ttext/csv\t",
        ] {
            #expect(Compression.isCompressible(contentType: type), "\(type)")
        }
        for type in [
            "image/png", "application/json5", "application/octet-stream", "", ";", "json", "textual/x",
            "application/javascripts", "image/svg", "font/woff2", "x-text/html",
        ] {
            #expect(!Compression.isCompressible(contentType: type), "\(type)")
        }
    }

    @Test func acceptEncodingIsNegotiated() {
        let both: [ContentCoding] = [.br, .gzip]
        #expect(AcceptEncoding.choose(nil, offered: both) == .identity)
        #expect(AcceptEncoding.choose("", offered: both) == .identity)
        #expect(AcceptEncoding.choose("gzip, deflate, br", offered: both) == .br)
        #expect(AcceptEncoding.choose("gzip, deflate", offered: both) == .gzip)
        #expect(AcceptEncoding.choose("br;q=0.5, gzip", offered: both) == .gzip)
        #expect(AcceptEncoding.choose("br;q=0, gzip;q=0", offered: both) == .identity)
        #expect(AcceptEncoding.choose("*", offered: both) == .br)
        #expect(AcceptEncoding.choose("*;q=0.1, br;q=0", offered: both) == .gzip)
        #expect(AcceptEncoding.choose("x-gzip", offered: both) == .gzip)
        #expect(AcceptEncoding.choose("GZIP;Q=1.0", offered: both) == .gzip)
        #expect(AcceptEncoding.choose("identity", offered: both) == .identity)
        #expect(AcceptEncoding.choose("gzip", offered: [.br]) == .identity)
        #expect(ContentCoding.gzip.tag(from: "\"v1\"") == "\"v1-gzip\"")
        #expect(ContentCoding.br.tag(from: "W/\"v1\"") == "W/\"v1-br\"")
        #expect(ContentCoding.identity.tag(from: "\"v1\"") == "\"v1\"")
    }

    static func makeDynamicServer() throws -> TestServer {
        try TestServer { router, _ in
            let page = Self.page
            router.getInline("/page") { request in
                if let answer = request.notModified(tag: "\"v1\"", headers: Headers([("Cache-Control", "no-cache")])) {
                    return answer
                }
                var response = Response.html(page)
                response.headers.add("ETag", "\"v1\"")
                response.headers.add("Cache-Control", "no-cache")
                return response
            }
            router.getInline("/small") { _ in Response.json(Array("{\"ok\":true}".utf8)) }
            router.getInline("/picture") { _ in
                Response(contentType: "image/jpeg", body: Array(repeating: 0x41, count: 8192))
            }
            router.getInline("/encoded") { _ in
                var response = Response.json(Array(repeating: 0x20, count: 4096))
                response.headers.add("Content-Encoding", "identity")
                return response
            }
        }
    }

    @Test func pagesAreGzippedForClientsThatTakeIt() async throws {
        let server = try Self.makeDynamicServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            let gzipped = try get(port, "/page", headers: ["Accept-Encoding: gzip, deflate, br"])
            #expect(gzipped.status == 200)
            #expect(gzipped.header("Content-Encoding") == "gzip")
            #expect(gzipped.header("Vary") == "Accept-Encoding")
            #expect(gzipped.header("ETag") == "\"v1-gzip\"")
            #expect(gzipped.header("Content-Length") == String(gzipped.body.count))
            #expect(gzipped.body.count < Self.page.utf8.count / 4)
            #expect(Compression.gunzip(gzipped.body) == Array(Self.page.utf8))

            let plain = try get(port, "/page")
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.header("Vary") == "Accept-Encoding")
            #expect(plain.header("ETag") == "\"v1\"")
            #expect(plain.text == Self.page)
            let refused = try get(port, "/page", headers: ["Accept-Encoding: gzip;q=0"])
            #expect(refused.header("Content-Encoding") == nil)
            #expect(refused.text == Self.page)

            // Small bodies, images and bodies already encoded go as they are.
            let small = try get(port, "/small", headers: ["Accept-Encoding: gzip"])
            #expect(small.header("Content-Encoding") == nil)
            #expect(small.text == "{\"ok\":true}")
            let picture = try get(port, "/picture", headers: ["Accept-Encoding: gzip"])
            #expect(picture.header("Content-Encoding") == nil)
            #expect(picture.header("Vary") == nil)
            #expect(picture.body.count == 8192)
            let encoded = try get(port, "/encoded", headers: ["Accept-Encoding: gzip"])
            #expect(encoded.header("Content-Encoding") == "identity")
            #expect(encoded.body.count == 4096)
        }
    }

    /// A body in pieces (`Response.Body.pieces`, how the kept list splices in its CSRF token) goes out
    /// exactly as its parts joined: sent from where they are through MHD's I/O vector (empty parts
    /// and all, up to the kernel's 1,024 entries) and, past that, joined into one array (MHD 0.9.75
    /// hung and aborted on a longer vector); gzip for a client that takes it, with the
    /// same `Vary` a page in one array gets; HEAD with the length and no body; a kept-alive connection
    /// reused after it.
    @Test func bodiesInPiecesGoOutAsTheirPartsJoined() async throws {
        let manyParts = (0..<3_000).map { Array("<tr><td>row \($0)</td>".utf8) }
        let cases: [(path: String, pieces: ResponsePieces)] = [
            (
                "/pieces",
                ResponsePieces(
                    parts: [[], Array(Self.page.utf8), [], Array("<end>".utf8), []], joiner: Array("TOKEN".utf8))
            ),
            ("/many", ResponsePieces(parts: manyParts, joiner: Array("<i>7f3a</i>".utf8))),
            ("/bound", ResponsePieces(parts: Array(manyParts.prefix(512)), joiner: Array("<i>7f3a</i>".utf8))),
            ("/past", ResponsePieces(parts: Array(manyParts.prefix(513)), joiner: Array("<i>7f3a</i>".utf8))),
            ("/plain", ResponsePieces(parts: [Array("one".utf8), Array("two".utf8)], joiner: [])),
            ("/empty", ResponsePieces(parts: [[], []], joiner: [])),
        ]
        let server = try TestServer { router, _ in
            for (path, pieces) in cases {
                router.getInline(path) { _ in
                    Response(
                        status: 200, headers: Headers([("Content-Type", "text/html; charset=utf-8")]),
                        body: .pieces(pieces))
                }
            }
        }
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for (path, pieces) in cases {
                let whole = pieces.joined()
                #expect(whole.count == pieces.count, "\(path)")
                let plain = try get(port, path)
                #expect(plain.status == 200, "\(path)")
                #expect(plain.body == whole, "\(path)")
                #expect(plain.header("Content-Length") == String(whole.count), "\(path)")
                #expect(
                    plain.header("Vary") == (whole.count >= Compression.minimumBytes ? "Accept-Encoding" : nil),
                    "\(path)")
                if whole.count >= Compression.minimumBytes {
                    let gzipped = try get(port, path, headers: ["Accept-Encoding: gzip"])
                    #expect(gzipped.header("Content-Encoding") == "gzip", "\(path)")
                    #expect(Compression.gunzip(gzipped.body) == whole, "\(path)")
                }
            }
            // Requests on one connection, HEADs first (pieces joined, then in a vector): the length,
            // no body, and the connection still right for the next answer.
            let connection = try RawConnection(port: port)
            for index in [1, 2] {
                let head = try connection.request(
                    "HEAD \(cases[index].path) HTTP/1.1\r\nHost: localhost\r\n\r\n", toHead: true)
                #expect(head.status == 200 && head.body.isEmpty)
                #expect(head.header("Content-Length") == String(cases[index].pieces.count))
            }
            let next = try connection.request("GET /pieces HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(next.body == cases[0].pieces.joined())
        }
    }

    /// The handler knows its identity tag only; the client may hold either encoding's.
    @Test func revalidationMatchesTheTagTheClientHolds() async throws {
        let server = try Self.makeDynamicServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            let gzipHeld = try get(
                port, "/page", headers: ["Accept-Encoding: gzip", "If-None-Match: \"v1-gzip\""])
            #expect(gzipHeld.status == 304)
            #expect(gzipHeld.header("ETag") == "\"v1-gzip\"")
            #expect(gzipHeld.header("Vary") == "Accept-Encoding")
            #expect(gzipHeld.header("Cache-Control") == "no-cache")
            let plainHeld = try get(port, "/page", headers: ["If-None-Match: \"v1\""])
            #expect(plainHeld.status == 304)
            #expect(plainHeld.header("ETag") == "\"v1\"")
            // A gzip tag from a client that no longer takes gzip, or another version: in full.
            #expect(try get(port, "/page", headers: ["If-None-Match: \"v1-gzip\""]).status == 200)
            let other = try get(port, "/page", headers: ["Accept-Encoding: gzip", "If-None-Match: \"v0-gzip\""])
            #expect(other.status == 200)
            #expect(other.header("ETag") == "\"v1-gzip\"")
        }
    }

    static func makeStaticServer() throws -> TestServer {
        try TestServer { router, root in
            let publicDirectory = root + "/Public"
            try FileManager.default.createDirectory(atPath: publicDirectory, withIntermediateDirectories: true)
            try Self.page.write(toFile: publicDirectory + "/app.css", atomically: true, encoding: .utf8)
            try "a{}".write(toFile: publicDirectory + "/tiny.css", atomically: true, encoding: .utf8)
            try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: publicDirectory + "/photo.png"))
            router.serveStatic(prefix: "/static", directory: publicDirectory)
        }
    }

    @Test func staticAssetsComeInTheEncodingAskedFor() async throws {
        let server = try Self.makeStaticServer()
        defer { server.stop() }
        let port = server.port
        let original = Array(Self.page.utf8)
        try await blocking {
            let brotli = try get(port, "/static/app.css", headers: ["Accept-Encoding: gzip, deflate, br"])
            #expect(brotli.header("Content-Encoding") == "br")
            #expect(brotli.header("Content-Length") == String(brotli.body.count))
            #expect(Compression.unbrotli(brotli.body) == original)
            let gzip = try get(port, "/static/app.css", headers: ["Accept-Encoding: gzip"])
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(Compression.gunzip(gzip.body) == original)
            let plain = try get(port, "/static/app.css")
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.body == original)
            for response in [brotli, gzip, plain] {
                #expect(response.header("Vary") == "Accept-Encoding")
                #expect(response.header("Content-Type") == "text/css; charset=utf-8")
                #expect(response.header("Cache-Control") == "public, max-age=3600")
            }
            let tags = try [brotli, gzip, plain].map { try #require($0.header("ETag")) }
            #expect(Set(tags).count == 3)
            #expect(tags[0].hasSuffix("-br\"") && tags[1].hasSuffix("-gzip\""))

            // Each encoding revalidates against its own tag only.
            let brotliAgain = try get(
                port, "/static/app.css", headers: ["Accept-Encoding: br", "If-None-Match: \(tags[0])"])
            #expect(brotliAgain.status == 304)
            #expect(brotliAgain.header("ETag") == tags[0])
            #expect(brotliAgain.header("Vary") == "Accept-Encoding")
            let switched = try get(
                port, "/static/app.css", headers: ["Accept-Encoding: gzip", "If-None-Match: \(tags[0])"])
            #expect(switched.status == 200)
            #expect(switched.header("ETag") == tags[1])
            // A range of the gzip representation is a range of its bytes.
            let range = try get(port, "/static/app.css", headers: ["Accept-Encoding: gzip", "Range: bytes=0-9"])
            #expect(range.status == 206)
            #expect(range.body == Array(gzip.body.prefix(10)))
            #expect(range.header("Content-Range") == "bytes 0-9/\(gzip.body.count)")
        }
    }

    @Test func imagesAndTinyFilesAreNeverCompressed() async throws {
        let server = try Self.makeStaticServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            let photo = try get(port, "/static/photo.png", headers: ["Accept-Encoding: gzip, br"])
            #expect(photo.header("Content-Encoding") == nil)
            #expect(photo.header("Vary") == nil)
            #expect(photo.body.count == 8192)
            let tiny = try get(port, "/static/tiny.css", headers: ["Accept-Encoding: gzip, br"])
            #expect(tiny.header("Content-Encoding") == nil)
            #expect(tiny.text == "a{}")
        }
    }
}
