import Foundation
import Testing

@testable import HTTPServer

/// Versioned asset URLs are cached for a year; anything else for the usual hour.
@Suite struct StaticAssetVersionTests {
    @Test func theVersionFollowsTheFilesNamesAndBytes() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let root = scratch.path + "/Public"
        try FileManager.default.createDirectory(atPath: root + "/css", withIntermediateDirectories: true)
        try "body{}".write(toFile: root + "/css/app.css", atomically: true, encoding: .utf8)
        try "x".write(toFile: root + "/a.js", atomically: true, encoding: .utf8)
        let first = StaticAssetVersion.of(directory: root)
        #expect(first.count == 16)
        #expect(StaticAssetVersion.of(directory: root) == first, "same files, same version")
        try "body{color:red}".write(toFile: root + "/css/app.css", atomically: true, encoding: .utf8)
        let edited = StaticAssetVersion.of(directory: root)
        #expect(edited != first)
        try FileManager.default.moveItem(atPath: root + "/a.js", toPath: root + "/b.js")
        #expect(StaticAssetVersion.of(directory: root) != edited, "a renamed file changes it")
        #expect(StaticAssetVersion.of(directory: scratch.path + "/missing") == "")
    }

    @Test func theCurrentVersionIsImmutableAndOthersAreNot() async throws {
        var version = ""
        let server = try TestServer { router, root in
            let publicDirectory = root + "/Public"
            try FileManager.default.createDirectory(atPath: publicDirectory, withIntermediateDirectories: true)
            try String(repeating: "p{margin:0}\n", count: 200).write(
                toFile: publicDirectory + "/app.css", atomically: true, encoding: .utf8)
            version = StaticAssetVersion.of(directory: publicDirectory)
            router.serveStatic(prefix: "/static", directory: publicDirectory, version: version)
        }
        defer { server.stop() }
        let port = server.port
        try await blocking { [version] in
            let pinned = try get(port, "/static/app.css?v=\(version)", headers: ["Accept-Encoding: br"])
            #expect(pinned.status == 200)
            #expect(pinned.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(pinned.header("Content-Encoding") == "br")
            let tag = try #require(pinned.header("ETag"))
            let revalidated = try get(
                port, "/static/app.css?v=\(version)", headers: ["Accept-Encoding: br", "If-None-Match: \(tag)"])
            #expect(revalidated.status == 304)
            #expect(revalidated.header("Cache-Control") == "public, max-age=31536000, immutable")
            for other in ["/static/app.css", "/static/app.css?v=0000000000000000", "/static/app.css?x=\(version)"] {
                let answer = try get(port, other)
                #expect(answer.status == 200)
                #expect(answer.header("Cache-Control") == "public, max-age=3600", "\(other)")
            }
        }
    }
}
