import Foundation
import Testing

@testable import HTTPServer

/// The connection limits of the configuration reach MHD and hold: per client address, in all, and idle.
@Suite struct ConnectionLimitTests {
    /// One poll thread: MHD divides the total connection limit among the threads of its pool, so only
    /// with one thread is "2 in all" exactly 2.
    static func server(_ limits: ServerLimits) throws -> TestServer {
        try TestServer(limits: limits, threadCount: 1) { router, _ in
            router.getInline("/ping") { _ in .text("pong") }
        }
    }

    @Test func connectionsPerAddressOverTheLimitAreClosedAndOthersServed() async throws {
        // On a thread of its own: a test blocking the concurrency pool for seconds starved the
        // async handlers of the suites running beside it (2 cores, 2 pool threads).
        try await blocking {
            let server = try Self.server(ServerLimits(maxConnections: 100, maxConnectionsPerIP: 3))
            defer { server.stop() }
            let held = try (0..<3).map { _ in try RawConnection(port: server.port, timeoutSeconds: 5) }
            for connection in held {
                #expect(try connection.request("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
            let extra = try RawConnection(port: server.port, timeoutSeconds: 5)
            try? extra.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(extra.isClosedByPeer())
            // The three kept-alive connections still work.
            for connection in held {
                #expect(try connection.request("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
        }
    }

    /// At the total limit MHD stops accepting: a further connection waits in the kernel's backlog,
    /// unanswered, until a slot frees; then it is served.
    @Test func connectionsOverTheTotalLimitWaitUntilASlotFrees() async throws {
        // On a thread of its own: a test blocking the concurrency pool for seconds starved the
        // async handlers of the suites running beside it (2 cores, 2 pool threads).
        try await blocking {
            let server = try Self.server(ServerLimits(maxConnections: 2, maxConnectionsPerIP: 0))
            defer { server.stop() }
            var held = try (0..<2).map { _ in try RawConnection(port: server.port, timeoutSeconds: 5) }
            for connection in held {
                #expect(try connection.request("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
            let extra = try RawConnection(port: server.port, timeoutSeconds: 2)
            try extra.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(throws: TestError.self) { try extra.readResponse() }  // nothing within 2 s
            held.removeLast()  // closes one held connection
            #expect(try extra.readResponse().status == 200)
        }
    }

    /// With a pool of four threads MHD divides the limit among them (2 each here); the thread that
    /// accepts hands each connection to a pool thread with room, and at the total stops accepting.
    @Test func theTotalLimitHoldsAcrossAPoolOfThreads() async throws {
        // On a thread of its own: a test blocking the concurrency pool for seconds starved the
        // async handlers of the suites running beside it (2 cores, 2 pool threads).
        try await blocking {
            let server = try TestServer(limits: ServerLimits(maxConnections: 8, maxConnectionsPerIP: 0), threadCount: 4)
            {
                router, _ in router.getInline("/ping") { _ in .text("pong") }
            }
            defer { server.stop() }
            var held: [RawConnection] = []
            for _ in 0..<8 {
                let connection = try RawConnection(port: server.port, timeoutSeconds: 5)
                #expect(try connection.request("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
                held.append(connection)
            }
            let extra = try RawConnection(port: server.port, timeoutSeconds: 2)
            try extra.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(throws: TestError.self) { try extra.readResponse() }  // waits in the backlog
            held.removeFirst()
            #expect(try extra.readResponse().status == 200)
            for connection in held {
                #expect(try connection.request("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
        }
    }

    @Test func anIdleConnectionIsClosedAfterTheTimeout() async throws {
        // On a thread of its own: a test blocking the concurrency pool for seconds starved the
        // async handlers of the suites running beside it (2 cores, 2 pool threads).
        try await blocking {
            let server = try Self.server(ServerLimits(idleTimeoutSeconds: 1))
            defer { server.stop() }
            let connection = try RawConnection(port: server.port, timeoutSeconds: 10)
            #expect(try connection.request("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            // Nothing more is sent: the server closes the connection by itself (well before our 10 s read timeout).
            #expect(connection.isClosedByPeer())
        }
    }
}
