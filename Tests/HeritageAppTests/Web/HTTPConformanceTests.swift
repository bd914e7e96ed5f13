import Foundation
import Testing

/// The HTTP skin's RFC behaviour as `har serve` shows it (docs/HTTP.md): photos answer conditional and
/// range requests (RFC 9110 §13, §14) only to their owner, refusals are counted at /metrics, and the
/// server's failures reach the application's log at error level.
@Suite(.serialized) struct HTTPConformanceTests {
    @Test func rfc9110_photosAndThumbnailsAnswerConditionalAndRangeRequests() async throws {
        let server = try RunningServer()
        let owner = try await SignedInClient(server)
        let draft = try await owner.openDraft()
        let id = try owner.photoID(await owner.upload(draft, file: try TestImages.png(), type: "image/png"))
        for path in ["/photos/\(id)", "/photos/\(id)/thumb"] {
            let full = try await owner.get(path)
            #expect(full.status == 200)
            let tag = try #require(full.headers["etag"])
            // Asked again at every use: once the session ends, a shared browser cannot show it.
            #expect(full.headers["cache-control"] == "private, no-cache", "\(path)")
            let lastModified = try #require(full.headers["last-modified"])
            #expect(full.headers["accept-ranges"] == "bytes")
            // A proxy that weakened the tag still gets its 304, with the 200's caching fields.
            let notModified = try await owner.get(path, ["-H", "If-None-Match: W/\(tag)"])
            #expect(notModified.status == 304, "\(path)")
            #expect(notModified.headers["etag"] == tag)
            #expect(notModified.headers["cache-control"] == "private, no-cache")
            #expect(try await owner.get(path, ["-H", "If-Modified-Since: \(lastModified)"]).status == 304)
            let part = try await owner.get(path, ["-H", "Range: bytes=0-7"])
            #expect(part.status == 206)
            #expect(part.headers["content-length"] == "8")
            #expect(part.headers["content-range"]?.hasPrefix("bytes 0-7/") == true)
            #expect(try await owner.get(path, ["-H", "Range: bytes=0-7", "-H", "If-Range: \"old\""]).status == 200)
            #expect(try await owner.get(path, ["-H", "Range: bytes=999999999-"]).status == 416)

            // Another user learns nothing from a validator: 404 before any condition is looked at.
            let other = try await SignedInClient(server)
            #expect(try await other.get(path, ["-H", "If-None-Match: \(tag)"]).status == 404)
        }
        await server.stop()
    }

    @Test func refusalsAreCountedAtMetricsAndFailuresLoggedAtErrorLevel() async throws {
        let server = try await ServeProcess()
        // The curl program leaves out a header given empty: an HTTP/1.1 request without Host.
        #expect(try await curlProcess(server.baseURL + "/healthz", ["-H", "Host:"]).status == 400)
        #expect(try await curlProcess(server.baseURL + "/healthz", ["-X", "BREW"]).status == 501)
        // A request line past MHD's buffer: MHD answers 414 itself and says so in the error log.
        let long = String(repeating: "a", count: 70_000)
        #expect(try await curlProcess(server.baseURL + "/healthz?q=\(long)").status == 414)
        let metrics = try await curlProcess(server.baseURL + "/metrics").body
        #expect(metrics.contains("har_http_refused_total{reason=\"missing_host\"} 1"))
        #expect(metrics.contains("har_http_refused_total{reason=\"method_not_implemented\"} 1"))
        #expect(metrics.contains("har_http_refused_total{reason=\"microhttpd_414\"} 1"))
        #expect(metrics.contains("har_http_refused_total{reason=\"bare_cr\"} 0"))
        let stderr = await server.stop().stderr
        #expect(stderr.contains(" error http: microhttpd: Error processing request (HTTP response code is 414"))
    }
}
