import Basics
import Foundation
import Testing

@testable import PlatformClient

struct SignatureVectors: Decodable {
    struct Vector: Decodable {
        var method: String
        var path: String
        var body: String?
        var bodyHex: String?
        var signature: String
        enum CodingKeys: String, CodingKey {
            case method, path, body
            case bodyHex = "body_hex"
            case signature = "x_api_sig"
        }

        /// The body's bytes; a malformed body_hex fails the test instead of signing some other body.
        func bodyBytes() throws -> [UInt8] {
            guard let hex = bodyHex else { return Array((body ?? "").utf8) }
            return try #require(Hex.decode(hex), "body_hex of \(method) \(path)")
        }
    }
    var secret: String
    var vectors: [Vector]

    static func load() throws -> SignatureVectors {
        try JSONDecoder().decode(SignatureVectors.self, from: Data(contentsOf: TestSupport.signatureVectorsURL))
    }
}

@Suite struct SignatureTests {
    @Test func everySharedVectorMatches() throws {
        let file = try SignatureVectors.load()
        #expect(file.vectors.count >= 6)
        for vector in file.vectors {
            let body = try vector.bodyBytes()
            let signature = Signature.sign(path: vector.path, body: body, secret: file.secret)
            #expect(signature == vector.signature, "\(vector.method) \(vector.path)")
        }
    }

    @Test func streamingOverAFileEqualsBuffered() throws {
        let file = try SignatureVectors.load()
        let directory = try TestSupport.temporaryDirectory()
        for vector in file.vectors {
            let body = try vector.bodyBytes()
            let path = directory + "/body"
            try Data(body).write(to: URL(fileURLWithPath: path))
            let stream = SignatureStream(secret: file.secret)
            stream.update(Signature.signedPath(vector.path).utf8)
            // Split the body: some bytes in memory, the rest read from the file, as a multipart upload does.
            let split = body.count / 3
            stream.update(body[..<split])
            try stream.update(fileAt: path, range: split..<body.count)
            #expect(stream.finalize() == vector.signature)
        }
    }

    @Test func signedPathDropsLeadingSlashAndQuery() {
        #expect(Signature.signedPath("/har/report?x=1") == "har/report")
        #expect(Signature.signedPath("har/report") == "har/report")
    }

    @Test func constantTimeComparison() {
        #expect(Signature.matches("abc", "abc"))
        #expect(!Signature.matches("abc", "abd"))
        #expect(!Signature.matches("abc", "abcd"))
        #expect(!Signature.matches("", ""))
    }

    @Test func aChangedBodyChangesTheSignature() {
        let a = Signature.sign(path: "/har/report", body: Array("{\"a\":1}".utf8), secret: "s")
        let b = Signature.sign(path: "/har/report", body: Array("{\"a\":2}".utf8), secret: "s")
        #expect(a != b)
    }

    @Test func sha256AndPBKDF2KnownAnswers() {
        #expect(
            SHA256Stream.hash(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // The digest fetched once serves every stream: empty input, and input in pieces.
        #expect(SHA256Stream.hash([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let pieces = SHA256Stream()
        for piece in ["a", "", "bc"] { pieces.update(Array(piece.utf8)) }
        #expect(pieces.finalize() == SHA256Stream.hash(Array("abc".utf8)))
        // The one-call digest, through each thread's own context: the same bytes on every thread and
        // on every call (the context is initialised afresh each time).
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(Hex.encode(SHA256Stream.digest(Array("abc".utf8))) == abc)
        #expect(Hex.encode(SHA256Stream.digest([])) == SHA256Stream.hash([]))
        let results = ThreadResults()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50 {
                results.add(Hex.encode(Array("abc".utf8).withUnsafeBufferPointer { SHA256Stream.digest(buffer: $0) }))
            }
        }
        #expect(results.count == 200)
        #expect(results.all.allSatisfy { $0 == abc })
        // RFC 7914 §11 PBKDF2-HMAC-SHA256 test vector (P="passwd", S="salt", c=1), first 32 bytes.
        let derived = Crypto.pbkdf2SHA256(password: "passwd", salt: Array("salt".utf8), iterations: 1)
        #expect(Hex.encode(derived) == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
    }
}

/// Digests handed back from other threads.
private final class ThreadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    func add(_ value: String) { lock.withLock { values.append(value) } }
    var count: Int { lock.withLock { values.count } }
    var all: [String] { lock.withLock { values } }
}
