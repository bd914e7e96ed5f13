import Foundation
import HTTPServer
import Testing

@testable import HeritageApp

/// Every page names its scripts, styles and images by versioned URLs, which come back
/// compressed and cached for a year, so a repeat visit fetches none of them again.
@Suite struct AssetCachingTests {
    static func assetURLs(in html: String) -> [String] {
        html.matches(of: /(?:src|href)="(\/static\/[^"]+)"/).map { String($0.output.1) }
    }

    @Test func pagesNameVersionedAssetsThatAreImmutable() async throws {
        let server = try RunningServer()
        defer { Task { await server.stop() } }
        let version = StaticAssetVersion.of(directory: TestPaths.packageRoot + "/Public")
        #expect(version.count == 16)
        let client = try WebClient(server)
        let signIn = try await client.get("/signin")
        _ = try await client.signIn(uniqueEmail())
        var urls = Set(Self.assetURLs(in: signIn.body))
        for page in ["/reports", "/reports/new", "/settings"] {
            let answer = try await client.get(page)
            #expect(answer.status == 200, "\(page)")
            let found = Self.assetURLs(in: answer.body)
            #expect(!found.isEmpty, "\(page) names no asset")
            urls.formUnion(found)
        }
        #expect(urls.contains { $0.hasPrefix("/static/vendor/leaflet/leaflet.js") })
        for url in urls.sorted() {
            #expect(url.hasSuffix("?v=\(version)"), "\(url) is not versioned")
            let asset = try await client.get(url, ["-H", "Accept-Encoding: gzip, deflate, br"])
            #expect(asset.status == 200, "\(url)")
            #expect(asset.headers["cache-control"] == "public, max-age=31536000, immutable", "\(url)")
            // Scripts and styles come compressed where that saves something (StaticFiles keeps a form
            // 256 bytes smaller at least: app.js, a few lines that import the rest, stays as it is).
            let file = TestPaths.packageRoot + "/Public/" + url.dropFirst("/static/".count).prefix { $0 != "?" }
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            if (url.contains(".js") || url.contains(".css")) && size > 1024 {
                #expect(asset.headers["content-encoding"] == "br", "\(url)")
                #expect(asset.headers["vary"] == "Accept-Encoding", "\(url)")
            }
        }
        // The same file without the version: the ordinary hour.
        let plain = try await client.get("/static/css/app.css")
        #expect(plain.headers["cache-control"] == "public, max-age=3600")
    }

    /// OFF-01: the service worker keeps every static file the server serves (the list it versions), named
    /// in the worker's first line, so that no hand-kept list can miss a script a page imports.
    @Test func off01ServiceWorkerNamesEveryStaticFile() async throws {
        let server = try RunningServer()
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let worker = try await client.get("/sw.js")
        #expect(worker.status == 200 && worker.headers["cache-control"] == "no-cache")
        let prologue = try #require(worker.body.split(separator: "\n").first)
        #expect(prologue.hasPrefix("self.HAR_SHELL_VERSION = '"))
        let listed = prologue.split(separator: "\"").filter { $0.hasPrefix("/static/") }.map(String.init)
        let files = StaticAssetVersion.files(under: TestPaths.packageRoot + "/Public")
        #expect(listed == files.filter { $0 != "js/sw.js" && $0 != "js/kiosk/sw.js" }.map { "/static/" + $0 })
        #expect(listed.contains("/static/js/core/sender.js") && listed.contains("/static/js/outbox.js"))
        for url in listed where url.hasSuffix(".js") {
            #expect(try await client.get(url).status == 200, "\(url)")
        }
    }

    /// `gzip_level`: 0 sends pages as they are; otherwise a page over 1 KB goes gzip-compressed.
    @Test func gzipLevelZeroTurnsPageCompressionOff() async throws {
        for (level, expected) in [("0", nil), ("1", "gzip"), ("9", "gzip")] as [(String, String?)] {
            let server = try RunningServer(environment: ["HAR_GZIP_LEVEL": level])
            let client = try WebClient(server)
            let page = try await client.get("/signin", ["-H", "Accept-Encoding: gzip"])
            #expect(page.status == 200)
            #expect(page.headers["content-encoding"] == expected, "gzip_level \(level)")
            #expect(page.headers["vary"] == (level == "0" ? nil : "Accept-Encoding"))
            if expected != nil {
                let html = String(decoding: try #require(Compression.gunzip(page.bytes)), as: UTF8.self)
                #expect(html.contains("<form"))
            }
            await server.stop()
        }
    }
}
