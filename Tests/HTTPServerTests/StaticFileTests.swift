import Foundation
import Testing

@testable import HTTPServer

@Suite struct StaticFileTests {
    /// Public/ with a few files, a secret beside it, and a symlink inside pointing at the secret.
    static func makeServer() throws -> TestServer {
        try TestServer { router, root in
            let publicDirectory = root + "/Public"
            try FileManager.default.createDirectory(atPath: publicDirectory + "/css", withIntermediateDirectories: true)
            try "body{}".write(toFile: publicDirectory + "/css/app.css", atomically: true, encoding: .utf8)
            try "<p>hi</p>".write(toFile: publicDirectory + "/index.html", atomically: true, encoding: .utf8)
            try "{}".write(toFile: publicDirectory + "/data.json", atomically: true, encoding: .utf8)
            try Data([0x89, 0x50]).write(to: URL(fileURLWithPath: publicDirectory + "/logo.png"))
            try "TOP SECRET".write(toFile: root + "/secret.txt", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                atPath: publicDirectory + "/escape.txt", withDestinationPath: root + "/secret.txt")
            router.serveStatic(prefix: "/static", directory: publicDirectory)
        }
    }

    @Test func servesFilesWithTypesETagAndCacheControl() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            let css = try get(port, "/static/css/app.css")
            #expect(css.status == 200)
            #expect(css.text == "body{}")
            #expect(css.header("Content-Type") == "text/css; charset=utf-8")
            #expect(css.header("Cache-Control") == "public, max-age=3600")
            for name in securityHeaderNames { #expect(css.header(name) != nil) }
            #expect(try get(port, "/static/index.html").header("Content-Type") == "text/html; charset=utf-8")
            #expect(try get(port, "/static/data.json").header("Content-Type") == "application/json")
            #expect(try get(port, "/static/logo.png").header("Content-Type") == "image/png")

            let tag = try #require(css.header("ETag"))
            let cached = try get(port, "/static/css/app.css", headers: ["If-None-Match: \(tag)"])
            #expect(cached.status == 304)
            #expect(cached.header("ETag") == tag)
            let stale = try get(port, "/static/css/app.css", headers: ["If-None-Match: \"other\""])
            #expect(stale.status == 200)
        }
    }

    /// Files are remembered between requests; an edited file, or one swapped for a symlink leading out,
    /// must be noticed on the next request.
    @Test func changedFilesAreNoticed() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let publicDirectory = server.scratch.path + "/Public"
        let secret = server.scratch.path + "/secret.txt"
        try await blocking {
            let first = try get(port, "/static/index.html")
            #expect(first.text == "<p>hi</p>")
            try "<p>hello again</p>".write(toFile: publicDirectory + "/index.html", atomically: true, encoding: .utf8)
            let second = try get(port, "/static/index.html")
            #expect(second.text == "<p>hello again</p>")
            #expect(second.header("ETag") != first.header("ETag"))

            #expect(try get(port, "/static/data.json").text == "{}")
            try FileManager.default.removeItem(atPath: publicDirectory + "/data.json")
            #expect(try get(port, "/static/data.json").status == 404)
            try FileManager.default.createSymbolicLink(
                atPath: publicDirectory + "/data.json", withDestinationPath: secret)
            let swapped = try get(port, "/static/data.json")
            #expect(swapped.status == 404)
            #expect(!swapped.text.contains("TOP SECRET"))
        }
    }

    @Test func nothingEscapesTheDirectory() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let attempts = [
            "/static/../Package.swift", "/static/../secret.txt", "/static/%2e%2e/secret.txt",
            "/static/%2e%2e%2fsecret.txt", "/static/css%2F..%2F..%2Fsecret.txt", "/static/css/..%2f..%2fsecret.txt",
            "/static/..\\secret.txt", "/static/%5c..%5csecret.txt", "/static/escape.txt", "/static/", "/static/css",
            "/static/./index.html",
        ]
        let results = try await blocking { try attempts.map { ($0, try get(port, $0)) } }
        for (path, response) in results {
            #expect(response.status == 404, "\(path) gave \(response.status)")
            #expect(!response.text.contains("TOP SECRET"))
        }
        // An encoded NUL never reaches routing: the path is refused as malformed.
        let nul = try await blocking { try get(port, "/static/index.html%00.png") }
        #expect(nul.status == 400)
    }
}
