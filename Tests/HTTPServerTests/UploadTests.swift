import Foundation
import Testing

@testable import HTTPServer

/// Reads this process's resident-set high-water mark in KiB.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

@Suite(.serialized) struct UploadTests {
    static func makeServer(limits: ServerLimits = ServerLimits()) throws -> TestServer {
        try TestServer(limits: limits) { router, _ in
            router.post("/upload", options: RouteOptions(maxBodyBytes: 300 << 20)) { request in
                guard let file = request.files.first else { return .text("no file", status: 400) }
                let sum = try run("/usr/bin/sha256sum", [file.path]).output.split(separator: " ").first ?? ""
                return .text(
                    "\(file.fieldName) \(file.fileName ?? "-") \(file.size) \(sum) \(request.formValue("note") ?? "")")
            }
            router.post("/small") { request in .text("files=\(request.files.count)") }
            router.post("/spool", options: RouteOptions(spoolRawBody: true)) { request in
                let raw = (try? Data(contentsOf: URL(fileURLWithPath: request.rawBodyPath ?? ""))) ?? Data()
                return .text("raw=\(raw.count) field=\(request.formValue("a") ?? "")")
            }
        }
    }

    @Test func twoHundredMegabyteUploadIsStreamedToDisk() async throws {
        let server = try Self.makeServer(limits: ServerLimits(maxBodyBytes: 300 << 20, maxFileBytes: 300 << 20))
        defer { server.stop() }
        let scratch = try ScratchDirectory()
        let file = scratch.path + "/big.bin"
        // Random-ish but cheap: 1 MiB of random bytes, each copy salted by its index.
        let seed = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255) }
        guard
            let handle = FileHandle(forWritingAtPath: file)
                ?? {
                    _ = FileManager.default.createFile(atPath: file, contents: nil)
                    return FileHandle(forWritingAtPath: file)
                }()
        else { throw TestFailure("cannot write \(file)") }
        for index in 0..<200 {
            var chunk = seed
            chunk[0] = UInt8(index)
            handle.write(Data(chunk))
        }
        try handle.close()
        let expected = try run("/usr/bin/sha256sum", [file]).output.split(separator: " ").first.map(String.init) ?? ""

        let before = peakResidentKiB()
        let port = server.port
        let result = try await blocking {
            try curlStatus([
                "-F", "file=@\(file);filename=big.bin", "-F", "note=hello",
                "http://127.0.0.1:\(port)/upload",
            ])
        }
        let growth = peakResidentKiB() - before
        #expect(result.status == 200)
        #expect(result.body == "file big.bin \(200 << 20) \(expected) hello")
        #expect(growth < 100 * 1024, "peak RSS grew by \(growth) KiB")
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }

    @Test func contentLengthOverTheLimitIs413AtOnce() async throws {
        let server = try Self.makeServer(limits: ServerLimits(maxBodyBytes: 1000))
        defer { server.stop() }
        let port = server.port
        let response = try await blocking {
            let connection = try RawConnection(port: port)
            // Only the head is sent: the 413 must come without the body.
            try connection.send(
                "POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 5000000\r\n\r\n"
            )
            return try connection.readResponse()
        }
        #expect(response.status == 413)
        for name in securityHeaderNames { #expect(response.header(name) != nil) }
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }

    /// MHD 0.9.75 cannot queue a response in the middle of a body, so a chunked body that grows past
    /// the limit is cut off: the connection closes at once instead of reading on.
    @Test func chunkedBodyOverTheLimitIsCutOffWhileArriving() async throws {
        let server = try Self.makeServer(limits: ServerLimits(maxBodyBytes: 100_000, maxFileBytes: 100_000))
        defer { server.stop() }
        let port = server.port
        let closed = try await blocking {
            let connection = try RawConnection(port: port)
            let boundary = "XyZ"
            try connection.send(
                "POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            var part = "--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n\r\n"
            part += String(repeating: "a", count: 50_000)
            try connection.send(String(part.utf8.count, radix: 16) + "\r\n" + part + "\r\n")
            // Keep sending, never ending the body: the server must not wait for the end.
            let chunk = String(repeating: "b", count: 20_000)
            for _ in 0..<10 {
                do { try connection.send(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n") } catch {
                    break
                }
            }
            return connection.isClosedByPeer()
        }
        #expect(closed)
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
        // The pool survives: the next request is answered.
        let after = try await blocking { try get(port, "/nothing").status }
        #expect(after == 404)
    }

    @Test func fileOverItsLimitInABoundedBodyGets413() async throws {
        let server = try Self.makeServer(limits: ServerLimits(maxBodyBytes: 1 << 20, maxFileBytes: 10_000))
        defer { server.stop() }
        let scratch = try ScratchDirectory()
        let big = scratch.path + "/big"
        try Data(count: 200_000).write(to: URL(fileURLWithPath: big))
        let port = server.port
        let result = try await blocking {
            try curlStatus(["-H", "Transfer-Encoding: chunked", "-F", "f=@\(big)", "http://127.0.0.1:\(port)/small"])
        }
        #expect(result.status == 413)
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }

    @Test func tooManyOrTooLargeFilesAre413() async throws {
        let server = try Self.makeServer(limits: ServerLimits(maxFileBytes: 10_000, maxFiles: 2))
        defer { server.stop() }
        let scratch = try ScratchDirectory()
        let big = scratch.path + "/big"
        try Data(count: 20_000).write(to: URL(fileURLWithPath: big))
        let small = scratch.path + "/small"
        try Data(count: 10).write(to: URL(fileURLWithPath: small))
        let port = server.port
        let (tooLarge, tooMany, fine) = try await blocking {
            (
                try curlStatus(["-F", "f=@\(big)", "http://127.0.0.1:\(port)/small"]).status,
                try curlStatus([
                    "-F", "a=@\(small)", "-F", "b=@\(small)", "-F", "c=@\(small)", "http://127.0.0.1:\(port)/small",
                ]).status,
                try curlStatus(["-F", "a=@\(small)", "-F", "b=@\(small)", "http://127.0.0.1:\(port)/small"])
            )
        }
        #expect(tooLarge == 413)
        #expect(tooMany == 413)
        #expect(fine.status == 200 && fine.body == "files=2")
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }

    @Test func malformedMultipartIs400() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let body = "--right\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\n\r\nDATA\r\n--right--\r\n"
        @Sendable func post(_ contentType: String, _ body: String) throws -> Int {
            let connection = try RawConnection(port: port)
            return try connection.request(
                "POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            ).status
        }
        let statuses = try await blocking {
            [
                try post("multipart/form-data; boundary=wrong", body),
                try post("multipart/form-data", body),
                try post("multipart/form-data; boundary=right", String(body.prefix(60))),
                try post("multipart/form-data; boundary=right", "garbage without any boundary at all"),
                try post("multipart/form-data; boundary=right", body),
            ]
        }
        #expect(statuses == [400, 400, 400, 400, 200])
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }

    @Test func rawBodyIsSpooledAndParsed() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let port = server.port
        let result = try await blocking { try curlStatus(["-d", "a=1&b=2", "http://127.0.0.1:\(port)/spool"]) }
        #expect(result.body == "raw=7 field=1")
        try await server.waitUntilNothingIsLeft()
        #expect(server.leftoverTemporaryFiles().isEmpty)
        #expect(server.openTemporaryDescriptors().isEmpty)
    }
}
