// RFC 9110 §13 (conditional requests), §14 (range requests) and §9.3.2 (HEAD) for static files and
// for handlers answering with ConditionalFile, on a raw socket to the real server.
import Foundation
import Testing

@testable import HTTPServer

@Suite struct RFC9110ConditionalTests {
    /// 300 KB: past the static cache's in-memory limit, so ranges come from the file on disk too.
    static let bigBytes: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }

    static func makeServer() throws -> TestServer {
        try TestServer { router, root in
            let publicDirectory = root + "/Public"
            try FileManager.default.createDirectory(atPath: publicDirectory, withIntermediateDirectories: true)
            try "0123456789abcdefghij".write(toFile: publicDirectory + "/small.txt", atomically: true, encoding: .utf8)
            try Data(bigBytes).write(to: URL(fileURLWithPath: publicDirectory + "/big.bin"))
            router.serveStatic(prefix: "/static", directory: publicDirectory)
            // A handler's file, as the photo routes answer: private caching and a Vary the 304 must keep.
            let photo = publicDirectory + "/big.bin"
            router.getInline("/photo") { request in
                var response = Response(
                    status: 200, headers: Headers([("Content-Type", "image/jpeg")]),
                    body: .file(path: photo, size: bigBytes.count))
                response.headers.add("Cache-Control", "private, max-age=86400")
                response.headers.add("Vary", "Cookie")
                return ConditionalFile.respond(to: request, with: response)
            }
        }
    }

    static func request(_ port: Int, _ path: String, _ headers: [String] = [], method: String = "GET") throws
        -> RawResponse
    {
        let extra = headers.map { $0 + "\r\n" }.joined()
        return try RawConnection(port: port).request(
            "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(extra)Connection: close\r\n\r\n", toHead: method == "HEAD")
    }

    // MARK: §13.1.2 If-None-Match

    @Test func section13_1_2_ifNoneMatchComparesWeaklyAcceptsListsAndStar() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for path in ["/static/small.txt", "/static/big.bin", "/photo"] {
                let full = try Self.request(port, path)
                #expect(full.status == 200)
                let tag = try #require(full.header("ETag"))
                #expect(tag.hasPrefix("\""))
                for condition in [tag, "W/\(tag)", "\"other\", \(tag)", "\"a\",W/\(tag) ", "*"] {
                    let response = try Self.request(port, path, ["If-None-Match: \(condition)"])
                    #expect(response.status == 304, "\(path) If-None-Match: \(condition)")
                    #expect(response.body.isEmpty)
                }
                #expect(try Self.request(port, path, ["If-None-Match: \"other\""]).status == 200)
                #expect(try Self.request(port, path, ["If-None-Match: W/\"other\", \"x\""]).status == 200)
            }
        }
    }

    /// §15.4.5: a 304 carries the ETag, Cache-Control and Vary the 200 would, and no body metadata.
    @Test func section15_4_5_notModifiedCarriesTheValidatorsAndCachingFields() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for path in ["/static/small.txt", "/photo"] {
                let full = try Self.request(port, path)
                let tag = try #require(full.header("ETag"))
                let notModified = try Self.request(port, path, ["If-None-Match: \(tag)"])
                #expect(notModified.status == 304)
                #expect(notModified.header("ETag") == tag)
                #expect(notModified.header("Cache-Control") == full.header("Cache-Control"))
                #expect(notModified.header("Vary") == full.header("Vary"))
                #expect(notModified.header("Content-Type") == nil)
            }
            #expect(try Self.request(port, "/photo", ["If-None-Match: *"]).header("Vary") == "Cookie")
        }
    }

    // MARK: §13.1.1 If-Match, §13.1.4 If-Unmodified-Since

    @Test func section13_1_1_and_13_1_4_failedPreconditionsGet412() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for path in ["/static/small.txt", "/photo"] {
                let full = try Self.request(port, path)
                let tag = try #require(full.header("ETag"))
                let lastModified = try #require(full.header("Last-Modified"))
                let seconds = try #require(HTTPDate.parse(lastModified))
                for condition in [tag, "*", "\"other\", \(tag)"] {
                    #expect(try Self.request(port, path, ["If-Match: \(condition)"]).status == 200, "\(condition)")
                }
                // If-Match compares strongly: a weakened tag does not match.
                for condition in ["W/\(tag)", "\"other\""] {
                    #expect(try Self.request(port, path, ["If-Match: \(condition)"]).status == 412, "\(condition)")
                }
                #expect(try Self.request(port, path, ["If-Unmodified-Since: \(lastModified)"]).status == 200)
                let earlier = HTTPDate.format(seconds - 1)
                #expect(try Self.request(port, path, ["If-Unmodified-Since: \(earlier)"]).status == 412)
                // §13.2.2: If-Match, when present, decides alone.
                #expect(
                    try Self.request(port, path, ["If-Match: \(tag)", "If-Unmodified-Since: \(earlier)"]).status == 200)
                // A failed precondition comes before If-None-Match and Range.
                #expect(
                    try Self.request(port, path, ["If-Match: \"other\"", "If-None-Match: \(tag)"]).status == 412)
            }
        }
    }

    // MARK: §13.1.3 If-Modified-Since

    @Test func section13_1_3_ifModifiedSinceAgainstLastModified() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for path in ["/static/small.txt", "/photo"] {
                let full = try Self.request(port, path)
                let lastModified = try #require(full.header("Last-Modified"))
                let seconds = try #require(HTTPDate.parse(lastModified))
                #expect(try Self.request(port, path, ["If-Modified-Since: \(lastModified)"]).status == 304)
                let later = HTTPDate.format(seconds + 3600)
                #expect(try Self.request(port, path, ["If-Modified-Since: \(later)"]).status == 304)
                let earlier = HTTPDate.format(seconds - 1)
                #expect(try Self.request(port, path, ["If-Modified-Since: \(earlier)"]).status == 200)
                #expect(try Self.request(port, path, ["If-Modified-Since: yesterday"]).status == 200)
                // §13.2.2: If-None-Match, when present, decides alone.
                let both = try Self.request(
                    port, path, ["If-None-Match: \"other\"", "If-Modified-Since: \(lastModified)"])
                #expect(both.status == 200)
            }
        }
    }

    // MARK: §14 Range

    @Test func section14_2_rangeGets206WithContentRange() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let big = Self.bigBytes
        try await blocking {
            let small = try Self.request(port, "/static/small.txt", ["Range: bytes=2-5"])
            #expect(small.status == 206)
            #expect(small.text == "2345")
            #expect(small.header("Content-Range") == "bytes 2-5/20")
            #expect(try Self.request(port, "/static/small.txt", ["Range: bytes=-3"]).text == "hij")
            #expect(try Self.request(port, "/static/small.txt", ["Range: bytes=18-"]).text == "ij")
            #expect(try Self.request(port, "/static/small.txt", ["Range: bytes=15-99"]).text == "fghij")

            for path in ["/static/big.bin", "/photo"] {
                let middle = try Self.request(port, path, ["Range: bytes=100000-100099"])
                #expect(middle.status == 206, "\(path)")
                #expect(middle.body == Array(big[100_000..<100_100]))
                #expect(middle.header("Content-Range") == "bytes 100000-100099/300000")
                #expect(middle.header("Content-Length") == "100")
                let tail = try Self.request(port, path, ["Range: bytes=299990-"])
                #expect(tail.body == Array(big[299_990...]))
                #expect(try Self.request(port, path).header("Accept-Ranges") == "bytes")
            }
        }
    }

    @Test func section15_5_17_unsatisfiableRangeGets416() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for (path, size) in [("/static/small.txt", 20), ("/photo", 300_000)] {
                let response = try Self.request(port, path, ["Range: bytes=\(size)-"])
                #expect(response.status == 416)
                #expect(response.header("Content-Range") == "bytes */\(size)")
                #expect(try Self.request(port, path, ["Range: bytes=-0"]).status == 416)
            }
        }
    }

    /// §14.2: a server MAY ignore Range; it does for other units, bad syntax and several ranges.
    @Test func section14_2_unusableRangesAreIgnored() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for range in ["items=0-1", "bytes=a-b", "bytes=5-2", "bytes=0-1,4-5", "bytes=", "bytes=--1"] {
                let response = try Self.request(port, "/static/small.txt", ["Range: \(range)"])
                #expect(response.status == 200, "Range: \(range)")
                #expect(response.text == "0123456789abcdefghij")
            }
            // Range is defined for GET only: HEAD with Range answers as HEAD does.
            #expect(try Self.request(port, "/static/small.txt", ["Range: bytes=0-1"], method: "HEAD").status == 200)
        }
    }

    // MARK: §13.1.5 If-Range

    @Test func section13_1_5_ifRangeNeedsAStrongMatch() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for path in ["/static/big.bin", "/photo"] {
                let full = try Self.request(port, path, ["Range: bytes=0-0"])
                let tag = try #require(full.header("ETag"))
                let lastModified = try #require(full.header("Last-Modified"))
                #expect(try Self.request(port, path, ["Range: bytes=0-9", "If-Range: \(tag)"]).status == 206)
                #expect(try Self.request(port, path, ["Range: bytes=0-9", "If-Range: \(lastModified)"]).status == 206)
                #expect(try Self.request(port, path, ["Range: bytes=0-9", "If-Range: W/\(tag)"]).status == 200)
                #expect(try Self.request(port, path, ["Range: bytes=0-9", "If-Range: \"other\""]).status == 200)
                let seconds = try #require(HTTPDate.parse(lastModified))
                let other = HTTPDate.format(seconds + 1)
                #expect(try Self.request(port, path, ["Range: bytes=0-9", "If-Range: \(other)"]).status == 200)
                // §13.2.2: If-None-Match comes before Range.
                #expect(try Self.request(port, path, ["Range: bytes=0-9", "If-None-Match: \(tag)"]).status == 304)
            }
        }
    }

    // MARK: §9.3.2 HEAD

    @Test func section9_3_2_headHasGETsFieldsAndNoBody() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        try await blocking {
            for path in ["/static/small.txt", "/static/big.bin", "/photo"] {
                let get = try Self.request(port, path)
                let connection = try RawConnection(port: port)
                let head = try connection.request("HEAD \(path) HTTP/1.1\r\nHost: x\r\n\r\n", toHead: true)
                #expect(head.status == 200)
                for name in [
                    "Content-Length", "Content-Type", "ETag", "Last-Modified", "Cache-Control", "Accept-Ranges",
                ] {
                    #expect(head.header(name) == get.header(name), "\(path) \(name)")
                }
                // No body: the next answer on the connection starts right after the head.
                let next = try connection.request("GET /static/small.txt HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(next.status == 200)
                #expect(next.text == "0123456789abcdefghij")
            }
        }
    }

    // MARK: HTTP-date

    @Test func rfc9110_section5_6_7_allThreeDateFormatsAreRead() {
        let expected = 784_111_777
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 CET") == nil)
        #expect(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("1994-11-06") == nil)
        #expect(HTTPDate.parse("") == nil)
    }
}
