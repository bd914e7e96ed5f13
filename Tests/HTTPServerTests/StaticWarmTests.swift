import Foundation
import Testing

@testable import HTTPServer

/// Static files loaded and compressed ahead of their first request (`StaticWarmer`, the
/// `static_warm` key), each file compressed once for the plain and the versioned URLs, and a file
/// changed after warming served as it is now.
@Suite struct StaticWarmTests {
    static let css = (0..<300).map { ".rule-\($0) { margin: \($0)px; color: #208AD4; }\n" }.joined()

    @Test func warmLoadsEveryFileOnceAndTheAnswersAreTheSame() async throws {
        var warmer: StaticWarmer?
        var publicDirectory = ""
        let server = try TestServer { router, root in
            publicDirectory = root + "/Public"
            try FileManager.default.createDirectory(
                atPath: publicDirectory + "/js", withIntermediateDirectories: true)
            try Self.css.write(toFile: publicDirectory + "/app.css", atomically: true, encoding: .utf8)
            try Self.css.write(toFile: publicDirectory + "/js/app.js", atomically: true, encoding: .utf8)
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: publicDirectory + "/photo.png"))
            warmer = router.serveStatic(prefix: "/static", directory: publicDirectory, version: "v1")
        }
        defer { server.stop() }
        let warm = try #require(warmer)
        // Three files loaded for the versioned URLs; the two text files compressed, once.
        #expect(warm.warm() == 3)
        #expect(warm.compressed.count == 2)
        #expect(warm.warm() == 0)

        let port = server.port
        let original = Array(Self.css.utf8)
        try await blocking {
            let pinned = try get(port, "/static/app.css?v=v1", headers: ["Accept-Encoding: br"])
            let plain = try get(port, "/static/app.css", headers: ["Accept-Encoding: br"])
            #expect(pinned.status == 200 && plain.status == 200)
            #expect(pinned.header("Content-Encoding") == "br" && plain.header("Content-Encoding") == "br")
            #expect(pinned.body == plain.body)
            // The plain URL's first request took the forms made for the versioned one.
            #expect(warm.compressed.count == 2)
            #expect(Compression.unbrotli(plain.body) == original)
            #expect(pinned.header("Cache-Control") == StaticAssetVersion.immutableCacheControl)
            #expect(plain.header("Cache-Control") == "public, max-age=3600")
            let script = try get(port, "/static/js/app.js", headers: ["Accept-Encoding: gzip"])
            #expect(Compression.gunzip(script.body) == original)
            #expect(try get(port, "/static/photo.png").body.count == 4096)
        }

        // Changed after warming (written atomically: another file, another identity): its first
        // request loads and compresses it again.
        let changed = Self.css + "/* changed */\n"
        try changed.write(toFile: publicDirectory + "/app.css", atomically: true, encoding: .utf8)
        try await blocking {
            let again = try get(port, "/static/app.css", headers: ["Accept-Encoding: br"])
            #expect(Compression.unbrotli(again.body) == Array(changed.utf8))
        }
    }

    /// A text file over `maximumCachedFileBytes` is kept compressed only: as it is, it goes from disk.
    @Test func aLargeTextFileIsKeptCompressedAndSentAsItIsFromDisk() async throws {
        let large = (0..<9000).map { "var v\($0) = \($0 * 7919 % 10007);\n" }.joined()
        #expect(large.utf8.count > StaticFiles.maximumCachedFileBytes)
        var warmer: StaticWarmer?
        let server = try TestServer { router, root in
            try FileManager.default.createDirectory(atPath: root + "/Public", withIntermediateDirectories: true)
            try large.write(toFile: root + "/Public/big.js", atomically: true, encoding: .utf8)
            warmer = router.serveStatic(prefix: "/static", directory: root + "/Public", version: "v1")
        }
        defer { server.stop() }
        #expect(try #require(warmer).warm() == 1)
        let port = server.port
        try await blocking {
            for path in ["/static/big.js?v=v1", "/static/big.js"] {
                let plain = try get(port, path)
                #expect(plain.status == 200 && plain.body == Array(large.utf8))
                let brotli = try get(port, path, headers: ["Accept-Encoding: br"])
                #expect(brotli.header("Content-Encoding") == "br")
                #expect(Compression.unbrotli(brotli.body) == Array(large.utf8))
            }
        }
    }

    /// The shared forms are bounded in bytes as the caches are: when the next would pass the bound, all
    /// are dropped, and a file changed is counted once, not twice.
    @Test func theSharedFormsStayWithinTheirBound() {
        let forms = CompressedForms()
        var info = stat()
        #expect(stat("/", &info) == 0)
        let identity = FileIdentity(info)
        let part = StaticFiles.maximumCachedFileBytes / 2
        let made = forms.forms(of: "/a", identity: identity, content: [UInt8](repeating: 1, count: part)) {
            ([UInt8](repeating: 2, count: 100), nil)
        }
        #expect(made.content?.count == part && forms.bytes == part + 100)
        // The same path again, made anew (another identity): replaced, not added.
        var changed = identity
        changed.size += 1
        _ = forms.forms(of: "/a", identity: changed, content: [UInt8](repeating: 1, count: part)) { (nil, nil) }
        #expect(forms.count == 1 && forms.bytes == part)
        // Filling past maximumCachedBytes drops what was kept before.
        let each = StaticFiles.maximumCachedBytes / 4
        for index in 0..<5 {
            _ = forms.forms(of: "/big\(index)", identity: identity, content: []) {
                ([UInt8](repeating: 3, count: each), nil)
            }
            #expect(forms.bytes <= StaticFiles.maximumCachedBytes)
        }
        #expect(forms.count < 6)
    }

    @Test func aFolderThatCannotBeReadWarmsNothing() {
        var router = Router()
        let warmer = router.serveStatic(prefix: "/static", directory: "/nonexistent/har-public", version: "")
        #expect(warmer.warm() == 0)
        #expect(warmer.compressed.count == 0)
    }
}
