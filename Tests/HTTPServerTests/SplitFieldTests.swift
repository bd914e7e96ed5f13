import Foundation
import Testing

@testable import HTTPServer

/// Form values that arrive split across reads (a slow or segmented connection) are put back together.
@Suite struct SplitFieldTests {
    @Test(arguments: [1, 2, 3, 5, 7, 64])
    func multipartTextValuesSurviveAnySplit(chunk: Int) throws {
        let server = try TestServer { router, _ in
            router.postInline("/echo") { request in
                .text(request.formFields.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
            }
        }
        defer { server.stop() }
        let boundary = "X7f3a"
        var body = ""
        for (name, value) in [("latitude", "51.5"), ("longitude", "-0.12"), ("captured_at", "2026-05-01T10:00:00Z")] {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        body +=
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n\r\nJPEGBYTES\r\n--\(boundary)--\r\n"
        let head =
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n"
        let connection = try RawConnection(port: server.port)
        try connection.send(head)
        try sendInPieces(Array(body.utf8), of: chunk, on: connection)
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "latitude=51.5&longitude=-0.12&captured_at=2026-05-01T10:00:00Z")
    }

    @Test(arguments: [1, 2, 5])
    func urlencodedValuesSurviveAnySplit(chunk: Int) throws {
        let server = try TestServer { router, _ in
            router.postInline("/echo") { request in
                .text(request.formFields.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
            }
        }
        defer { server.stop() }
        let body = Array("email=volunteer%40example.org&password=correct+horse&lang=fr".utf8)
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(body.count)\r\n\r\n")
        try sendInPieces(body, of: chunk, on: connection)
        let response = try connection.readResponse()
        #expect(response.text == "email=volunteer@example.org&password=correct horse&lang=fr")
    }
}

/// Sends `bytes` `chunk` bytes at a time, pausing between sends so that the server reads each piece
/// on its own (and its parser sees values split at every offset).
private func sendInPieces(_ bytes: [UInt8], of chunk: Int, on connection: RawConnection) throws {
    var offset = 0
    while offset < bytes.count {
        try connection.send(Array(bytes[offset..<min(offset + chunk, bytes.count)]))
        offset += chunk
        usleep(2000)
    }
}
