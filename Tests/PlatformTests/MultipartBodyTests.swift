import Basics
import Foundation
import Testing

@testable import PlatformClient

@Suite struct MultipartBodyTests {
    func makePhoto(bytes: [UInt8]) throws -> PhotoUpload {
        let path = try TestSupport.temporaryDirectory() + "/photo.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return PhotoUpload(
            filePath: path, contentType: "image/jpeg", latitude: 48.853, longitude: 2.349,
            accuracy: 12, capturedAt: ISO8601.parse("2026-11-29T15:41:17+01:00"))
    }

    /// Streams the body through the reader with an awkward buffer size, as curl would.
    func streamed(_ body: MultipartBody, chunk: Int) -> [UInt8]? {
        let reader = MultipartReader(body: body)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            guard let got = buffer.withUnsafeMutableBytes({ reader.read(into: $0) }) else { return nil }
            if got == 0 { return out }
            out.append(contentsOf: buffer[..<got])
        }
    }

    @Test func streamedBytesEqualBufferedBuild() throws {
        let photo = try makePhoto(bytes: [0xff, 0xd8, 0xff, 0xe0] + (0..<200_000).map { UInt8($0 % 251) })
        let body = try MultipartBody(photo: photo, boundary: MultipartBody.randomBoundary())
        let buffered = try body.bufferedBytes()
        #expect(buffered.count == body.totalLength)
        for chunk in [1, 7, 4096, 65536, 1_000_000] { #expect(streamed(body, chunk: chunk) == buffered) }
        let text = String(decoding: body.suffix, as: UTF8.self)
        #expect(text.contains("name=\"latitude\"\r\n\r\n48.853\r\n"))
        #expect(text.contains("name=\"captured_at\"\r\n\r\n2026-11-29T14:41:17.000000+00:00\r\n"))
        #expect(text.hasSuffix("--\(body.boundary)--\r\n"))
    }

    @Test func streamingSignatureEqualsBufferedSignature() throws {
        let photo = try makePhoto(bytes: (0..<300_000).map { UInt8($0 % 256) })
        let body = try MultipartBody(photo: photo, boundary: "X7f3a")
        let path = "/har/report/f31aa1c2f1bd11e1abf1109adda98fe0/photo"
        #expect(
            try body.signature(path: path, secret: "s3cret")
                == Signature.sign(path: path, body: try body.bufferedBytes(), secret: "s3cret"))
    }

    @Test func rewindRereadsTheSameBytes() throws {
        let body = try MultipartBody(photo: try makePhoto(bytes: Array(repeating: 9, count: 10_000)), boundary: "b")
        let reader = MultipartReader(body: body)
        var buffer = [UInt8](repeating: 0, count: 5000)
        _ = buffer.withUnsafeMutableBytes { reader.read(into: $0) }
        #expect(reader.seek(to: 0))
        #expect(streamed(body, chunk: 333) == (try body.bufferedBytes()))
        #expect(!reader.seek(to: body.totalLength + 1))
    }

    @Test func boundaryIsStablePerIdempotencyKey() {
        #expect(MultipartBody.boundary(forIdempotencyKey: "k1") == MultipartBody.boundary(forIdempotencyKey: "k1"))
        #expect(MultipartBody.boundary(forIdempotencyKey: "k1") != MultipartBody.boundary(forIdempotencyKey: "k2"))
        #expect(MultipartBody.randomBoundary() != MultipartBody.randomBoundary())
    }

    @Test func missingFileIsAnError() {
        #expect(throws: FileReadError.self) {
            try MultipartBody(
                photo: PhotoUpload(filePath: "/nonexistent/x.jpg", contentType: "image/jpeg"), boundary: "b")
        }
    }
}
