import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Form bodies cost what their bytes say: the form reader caps the number of fields and counts their
/// names with their values on every route, and a route that takes more than the pre-authentication
/// default (the review's bulk actions, 4 MiB) answers anyone without the session or role on the
/// request's head, before a byte of the body is read.
@Suite struct FormBodyLimitTests {
    /// `a=1&a=1&…`: about a million fields in 4 MB.
    static let manyFields = String(repeating: "a=1&", count: 1_000_000)

    /// The answer to a head of `length` bytes whose body is never sent (none can come otherwise).
    private func headOnly(_ port: Int, _ path: String, cookie: String? = nil, length: Int = 4_000_000)
        async throws -> Int
    {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(length)\r\n"
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        let request = head + "\r\n"
        return try await blocking {
            let socket = try RawConnection(port: port, timeoutSeconds: 5)
            socket.sendAll(request)
            return try socket.readResponse().status
        }
    }

    /// The most memory the process has held (kB), from /proc.
    private func peakResidentKB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func anAnonymousBulkBodyIsRefusedOnItsHead() async throws {
        let server = try RunningServer()
        for path in ["/review/bulk", "/review/bulk/undo"] {
            #expect(try await headOnly(server.port, path) == 303, "\(path)")
        }
        // Signed in but no coordinator: 403 on the head too.
        let volunteer = try await SignedInClient(server)
        let cookie = try #require(volunteer.http.cookie("har_session"))
        #expect(try await headOnly(server.port, "/review/bulk", cookie: "har_session=\(cookie)") == 403)
        await server.stop()
    }

    /// Eight anonymous million-field bodies at once: the server's peak memory barely moves (each was
    /// read into about 100 MB of fields before).
    @Test func millionFieldBodiesSentAnonymouslyCostTheServerNoMemory() async throws {
        let server = try await ServeProcess()
        let pid = server.process.processIdentifier
        _ = try await curl(server.baseURL + "/healthz")
        let before = peakResidentKB(pid)
        let port = server.port
        let request =
            "POST /review/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(Self.manyFields.utf8.count)\r\n\r\n" + Self.manyFields
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await blocking {
                        let socket = try RawConnection(port: port, timeoutSeconds: 10)
                        socket.sendAll(request)  // the server may close before all of it is sent
                        return (try? socket.readResponse().status) ?? 0
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let grown = peakResidentKB(pid) - before
        _ = await server.stop()
        // 0: the answer was lost to the reset of a connection closed with body still coming.
        #expect(statuses.allSatisfy { $0 == 303 || $0 == 0 }, "\(statuses)")
        #expect(grown < 32 * 1024, "peak resident memory grew by \(grown) kB")
    }

    @Test func everyRouteCapsItsFieldsAndCountsTheirNames() async throws {
        let server = try ReviewTests.server()
        let client = try WebClient(server)
        let token = try await client.csrf()
        // 1,500 tiny fields on a route of the default 64 KiB: refused, though a few KB.
        let many = try TestPaths.temporaryFile(
            contents: "_csrf=\(token)&lang=fr&" + String(repeating: "a=1&", count: 1_500), name: "body")
        #expect(try await client.post("/lang", [], ["--data-binary", "@" + many]).status == 413)
        #expect(try await client.post("/lang", [("_csrf", token), ("lang", "fr")]).status == 303)

        // A coordinator's bulk body: long names with one-byte values count against the same 1 MiB as values.
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let csrf = try SignedInClient.csrf(in: try await coordinator.get("/review").body)
        let name = String(repeating: "n", count: 6_000)
        let longNames = try TestPaths.temporaryFile(
            contents: "_csrf=\(csrf)&action=approve&" + String(repeating: "\(name)=1&", count: 300), name: "names")
        #expect(try await coordinator.http.curl("/review/bulk", ["--data-binary", "@" + longNames]).status == 413)
        // Past the bulk's own cap (its ids and the form's fields): refused as it is read.
        let tooMany = try TestPaths.temporaryFile(
            contents: "_csrf=\(csrf)&action=approve&" + String(repeating: "ids=1&", count: 20_200), name: "ids")
        #expect(try await coordinator.http.curl("/review/bulk", ["--data-binary", "@" + tooMany]).status == 413)
        await server.stop()
    }
}
