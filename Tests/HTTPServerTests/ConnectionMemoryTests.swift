// The connection memory pool (ServerLimits.connectionMemoryBytes, MHD_OPTION.CONNECTION_MEMORY_LIMIT)
// holds the request head: what a smaller pool still accepts, and what it refuses, on a real socket.
import Foundation
import Testing

@testable import HTTPServer

@Suite struct ConnectionMemoryTests {
    static func makeServer(connectionMemoryBytes: Int? = nil) throws -> TestServer {
        var limits = ServerLimits()
        if let connectionMemoryBytes { limits.connectionMemoryBytes = connectionMemoryBytes }
        return try TestServer(limits: limits) { router, _ in
            router.getInline("/cookies") { request in
                .text("\(request.headers["Cookie"]?.utf8.count ?? 0) \(request.cookies.count)")
            }
        }
    }

    /// A browser's request head with `cookieBytes` of cookies in 40 cookies (a Cookie field of exactly
    /// that length) and the fields Chromium sends with a page load.
    static func browserRequest(cookieBytes: Int) -> String {
        let count = 40
        let valueLength = cookieBytes / count - "c00=; ".utf8.count
        var cookies = (0..<count).map { index -> String in
            "c\(index < 10 ? "0" : "")\(index)=" + String(repeating: "v", count: valueLength)
        }
        .joined(separator: "; ")
        cookies += String(repeating: "v", count: cookieBytes - cookies.utf8.count)
        return "GET /cookies HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n"
            + "sec-ch-ua: \"Chromium\";v=\"120\", \"Not?A_Brand\";v=\"8\"\r\nsec-ch-ua-mobile: ?1\r\n"
            + "sec-ch-ua-platform: \"Android\"\r\nUpgrade-Insecure-Requests: 1\r\n"
            + "User-Agent: Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/120.0.0.0 Mobile Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
            + "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7\r\n"
            + "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-User: ?1\r\n"
            + "Sec-Fetch-Dest: document\r\nReferer: http://127.0.0.1/reports\r\n"
            + "Accept-Encoding: gzip, deflate, br\r\nAccept-Language: fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7\r\n"
            + "If-None-Match: \"r-1a2b3c4d5e6f7a8b-1a2b3c4d\"\r\nCookie: \(cookies)\r\n\r\n"
    }

    /// 8 KB of cookies (twice what one browser cookie may hold, and nginx's and Apache's default
    /// limit for one field line) in a full browser head: answered by the handler at the default pool
    /// size, twice on one kept-alive connection, with every cookie there.
    @Test func browserHeadWithEightKilobytesOfCookiesIsAnsweredAtTheDefaultSize() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let request = Self.browserRequest(cookieBytes: 8192)
        #expect(request.utf8.count > 8 * 1024 + 512)
        try await blocking {
            let connection = try RawConnection(port: port, timeoutSeconds: 5)
            for _ in 0..<2 {
                let response = try connection.request(request)
                #expect(response.status == 200)
                #expect(response.text == "8192 40")
            }
        }
        #expect(server.server.refusals.all.allSatisfy { $0.count == 0 })
    }

    /// A head larger than the pool gets MHD's 431 (RFC 9110 §5.4: a 4xx) and a closed connection,
    /// counted, with no handler run.
    @Test func headLargerThanThePoolGets431() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let request = Self.browserRequest(cookieBytes: ServerLimits().connectionMemoryBytes)
        let (response, closed) = try await blocking { try RFC9112FramingTests.exchange(port, request) }
        #expect(response.status == 431)
        #expect(closed)
        #expect(server.server.refusals.count(.libraryFieldsTooLarge) == 1)
        #expect(!server.log.entries.contains { $0.status == 200 })
    }

    /// The size is the server's to choose: a head the default refuses passes with a larger pool.
    @Test func largerPoolAcceptsLargerHead() async throws {
        let size = ServerLimits().connectionMemoryBytes
        let server = try Self.makeServer(connectionMemoryBytes: size * 4)
        defer { server.stop() }
        let port = server.port
        let request = Self.browserRequest(cookieBytes: size)
        let response = try await blocking {
            try RawConnection(port: port, timeoutSeconds: 5).request(request)
        }
        #expect(response.status == 200)
        #expect(response.text == "\(size) 40")
    }
}
