import Foundation
import Testing

@testable import HeritageApp

/// Slow clients. Hundreds of connections trickling their headers from other loopback
/// addresses (127.0.0.2 …) are cut at the header deadline while a normal client is answered; a body
/// trickled below the minimum rate is cut; one address cannot take more than its share of connections.
/// The test waits for the server to act, bounded, and never measures a duration.
@Suite(.serialized) struct SlowClientTests {
    /// Sends `text` on every socket still open; keeps those the server has not closed.
    private func trickle(_ sockets: [RawConnection], _ text: String) async throws -> [RawConnection] {
        try await blocking { sockets.filter { $0.sendAll(text) && !$0.isClosedNow() } }
    }

    @Test func hundredsOfTricklingConnectionsAreCutWhileANormalClientIsAnswered() async throws {
        let server = try RunningServer(environment: ["HAR_HEADER_TIMEOUT_SECONDS": "1"])
        let port = server.port
        var open = try await blocking {
            try (0..<300).map { index -> RawConnection in
                let socket = try RawConnection(port: port, from: "127.0.0.\(2 + index % 200)")
                socket.sendAll("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                return socket
            }
        }
        let client = try WebClient(server)
        var rounds = 0
        while !open.isEmpty && rounds < 80 {
            // A normal client is answered while the trickling connections are held.
            #expect(try await client.get("/healthz").status == 200)
            try await Task.sleep(for: .milliseconds(250))
            open = try await trickle(open, "X-Trickle: a\r\n")
            rounds += 1
        }
        #expect(open.isEmpty, "\(open.count) trickling connections still open")
        #expect(try await client.get("/signin").status == 200)
        await server.stop()
    }

    @Test func aBodyTrickledBelowTheMinimumRateIsCut() async throws {
        let server = try RunningServer(environment: ["HAR_HEADER_TIMEOUT_SECONDS": "1"])
        let port = server.port
        let socket = try await blocking {
            let socket = try RawConnection(port: port, from: "127.0.0.2")
            socket.sendAll(
                "POST /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 60000\r\n\r\nemail=")
            return socket
        }
        var open = [socket]
        var rounds = 0
        while !open.isEmpty && rounds < 80 {
            try await Task.sleep(for: .milliseconds(250))
            open = try await trickle(open, "a")
            rounds += 1
        }
        #expect(open.isEmpty, "the trickled body is still being read")
        // A body sent at once is read as ever.
        let client = try WebClient(server)
        #expect(try await client.signIn(uniqueEmail()).status == 303)
        await server.stop()
    }

    @Test func oneAddressGetsItsShareOfConnectionsOnly() async throws {
        let server = try RunningServer(environment: [
            "HAR_MAX_CONNECTIONS_PER_IP": "4", "HAR_HEADER_TIMEOUT_SECONDS": "0",
        ])
        let port = server.port
        let (held, extra) = try await blocking {
            let held = try (0..<4).map { _ -> RawConnection in
                let socket = try RawConnection(port: port, from: "127.0.0.9")
                socket.sendAll("GET /healthz HTTP/1.1\r\n")
                return socket
            }
            return (held, try RawConnection(port: port, from: "127.0.0.9"))
        }
        #expect(try await blocking { extra.isClosedByPeer() })
        let other = try await blocking { () -> Int in
            let socket = try RawConnection(port: port, from: "127.0.0.10")
            socket.sendAll("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return try socket.readResponse().status
        }
        #expect(other == 200)
        #expect(held.count == 4)
        await server.stop()
    }
}
