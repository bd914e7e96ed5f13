import Foundation
import Testing

@testable import HTTPServer

@Suite struct LifecycleTests {
    @Test func requestInFlightFinishesDuringGracefulStopAndNewConnectionsAreRefused() async throws {
        let started = LogSink()
        let server = try TestServer { router, _ in
            router.get("/slow") { _ in
                started.add("started")
                try await Task.sleep(nanoseconds: 1_000_000_000)
                return .text("done")
            }
        }
        defer { server.stop() }
        let port = server.port
        async let slow = blocking { try get(port, "/slow") }
        // Stop only once the handler is running (no timing assumption).
        while started.errors.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        let stopper = server.server
        async let stopped: Void = blocking { stopper.stop(gracePeriod: 10) }
        // Wait until the listening socket is gone, then a new connection must be refused.
        while server.server.isAcceptingConnections { try await Task.sleep(nanoseconds: 10_000_000) }
        let refused = try await blocking { (try? RawConnection(port: port)) == nil }
        #expect(refused)
        let response = try await slow
        #expect(response.status == 200)
        #expect(response.text == "done")
        try await stopped
        server.server.stop()  // idempotent
    }

    @Test func stopPastItsGracePeriodAnswersSuspendedRequests503() async throws {
        let started = LogSink()
        let server = try TestServer { router, _ in
            router.get("/forever") { _ in
                started.add("started")
                try? await Task.sleep(nanoseconds: 20_000_000_000)
                return .text("never")
            }
        }
        defer { server.stop() }
        let port = server.port
        async let response = blocking { try get(port, "/forever") }
        while started.errors.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        let stopper = server.server
        try await blocking { stopper.stop(gracePeriod: 0.2) }
        #expect(try await response.status == 503)
    }

    @Test func handlerPastItsDeadlineGets503() async throws {
        let server = try TestServer(limits: ServerLimits(handlerDeadlineSeconds: 0.3)) { router, _ in
            router.get("/stuck") { _ in
                try? await Task.sleep(nanoseconds: 3_000_000_000)
                return .text("too late")
            }
        }
        defer { server.stop() }
        let port = server.port
        let response = try await blocking { try get(port, "/stuck") }
        #expect(response.status == 503)
        #expect(!response.text.contains("too late"))
        for name in securityHeaderNames { #expect(response.header(name) != nil) }
    }

    @Test func twoHundredParallelClientsAreAllAnswered() async throws {
        let server = try TestServer(limits: ServerLimits(maxConnections: 1000, maxConnectionsPerIP: 0)) { router, _ in
            router.get("/echo/:n") { request in
                try await Task.sleep(nanoseconds: 10_000_000)
                return .text("n=\(request.parameters["n"] ?? "")")
            }
            router.getInline("/inline/:n") { request in .text("i=\(request.parameters["n"] ?? "")") }
        }
        defer { server.stop() }
        let port = server.port
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await blocking {
                        let path = index.isMultiple(of: 2) ? "/echo/\(index)" : "/inline/\(index)"
                        let expected = index.isMultiple(of: 2) ? "n=\(index)" : "i=\(index)"
                        let response = try get(port, path)
                        return (index, response.status == 200 && response.text == expected)
                    }
                }
            }
            var all: [(Int, Bool)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.1 })
    }

    @Test func startReportsAPortInUse() throws {
        let first = try TestServer { router, _ in router.getInline("/") { _ in .text("") } }
        defer { first.stop() }
        let scratch = try ScratchDirectory()
        let second = HTTPServer(
            configuration: ServerConfiguration(port: first.port, temporaryDirectory: scratch.path + "/tmp"),
            router: Router(), errorLog: { _ in })
        do {
            try second.start()
            second.stop()
            Issue.record("second server started on a port in use")
        } catch let error as HTTPServerError {
            #expect(error.description.contains("127.0.0.1:\(first.port)"))
        }
    }

    @Test func servesHTTPSWithASelfSignedCertificate() async throws {
        let keys = try ScratchDirectory()
        let generated = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1",
                "-keyout", keys.path + "/key.pem", "-out", keys.path + "/cert.pem",
            ])
        #expect(generated.status == 0)
        let server = try TestServer(tls: (keys.path + "/cert.pem", keys.path + "/key.pem")) { router, _ in
            router.get("/secure") { _ in .text("over tls") }
        }
        defer { server.stop() }
        let port = server.port
        let result = try await blocking {
            try run("/usr/bin/curl", ["-sk", "-D", "-", "https://127.0.0.1:\(port)/secure"])
        }
        #expect(result.output.hasPrefix("HTTP/1.1 200"))
        #expect(result.output.hasSuffix("over tls"))
        #expect(result.output.lowercased().contains("x-frame-options: deny"))
    }
}
