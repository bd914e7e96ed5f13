import Foundation
import Testing

@testable import HTTPServer

/// The connection limits of the configuration reach MHD and hold: per client address, in all, and idle.
@Suite struct ConnectionLimitTests {
    static let ping = "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Runs `test` against a server with `limits` answering `/ping`, stopped after it; on a thread of
    /// its own: a test blocking the concurrency pool for seconds starved the async handlers of the
    /// suites running beside it (2 cores, 2 pool threads). One poll thread by default: MHD divides the
    /// total connection limit among the threads of its pool, so only with one thread is "2 in all"
    /// exactly 2.
    static func withServer(
        _ limits: ServerLimits, threads: Int = 1, _ test: @escaping @Sendable (TestServer) throws -> Void
    ) async throws {
        try await blocking {
            let server = try TestServer(limits: limits, threadCount: threads) { router, _ in
                router.getInline("/ping") { _ in .text("pong") }
            }
            defer { server.stop() }
            try test(server)
        }
    }

    @Test func connectionsPerAddressOverTheLimitAreClosedAndOthersServed() async throws {
        try await Self.withServer(ServerLimits(maxConnections: 100, maxConnectionsPerIP: 3)) { server in
            let held = try (0..<3).map { _ in try RawConnection(port: server.port, timeoutSeconds: 5) }
            for connection in held {
                #expect(try connection.request(Self.ping).status == 200)
            }
            let extra = try RawConnection(port: server.port, timeoutSeconds: 5)
            try? extra.send(Self.ping)
            #expect(extra.isClosedByPeer())
            // The three kept-alive connections still work.
            for connection in held {
                #expect(try connection.request(Self.ping).status == 200)
            }
        }
    }

    /// At the total limit MHD stops accepting: a further connection waits in the kernel's backlog,
    /// unanswered, until a slot frees; then it is served.
    @Test func connectionsOverTheTotalLimitWaitUntilASlotFrees() async throws {
        try await Self.withServer(ServerLimits(maxConnections: 2, maxConnectionsPerIP: 0)) { server in
            var held = try (0..<2).map { _ in try RawConnection(port: server.port, timeoutSeconds: 5) }
            for connection in held {
                #expect(try connection.request(Self.ping).status == 200)
            }
            let extra = try RawConnection(port: server.port, timeoutSeconds: 2)
            try extra.send(Self.ping)
            #expect(throws: TestFailure.self) { try extra.readResponse() }  // nothing within 2 s
            held.removeLast()  // closes one held connection
            #expect(try extra.readResponse().status == 200)
        }
    }

    /// With a pool of four threads MHD divides the limit among them (2 each here); the thread that
    /// accepts hands each connection to a pool thread with room, and at the total stops accepting.
    @Test func theTotalLimitHoldsAcrossAPoolOfThreads() async throws {
        try await Self.withServer(ServerLimits(maxConnections: 8, maxConnectionsPerIP: 0), threads: 4) { server in
            var held: [RawConnection] = []
            for _ in 0..<8 {
                let connection = try RawConnection(port: server.port, timeoutSeconds: 5)
                #expect(try connection.request(Self.ping).status == 200)
                held.append(connection)
            }
            let extra = try RawConnection(port: server.port, timeoutSeconds: 2)
            try extra.send(Self.ping)
            #expect(throws: TestFailure.self) { try extra.readResponse() }  // waits in the backlog
            held.removeFirst()
            #expect(try extra.readResponse().status == 200)
            for connection in held {
                #expect(try connection.request(Self.ping).status == 200)
            }
        }
    }

    @Test func anIdleConnectionIsClosedAfterTheTimeout() async throws {
        try await Self.withServer(ServerLimits(idleTimeoutSeconds: 1)) { server in
            let connection = try RawConnection(port: server.port, timeoutSeconds: 10)
            #expect(try connection.request(Self.ping).status == 200)
            // Nothing more is sent: the server closes the connection by itself (well before our 10 s read timeout).
            #expect(connection.isClosedByPeer())
        }
    }
}
