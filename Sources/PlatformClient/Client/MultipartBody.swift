import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The `multipart/form-data` body of a photo upload (RFC 7578): one file part, then the text parts.
/// It is three pieces — prefix bytes, the file as it is on disk, suffix bytes — so that it can be
/// signed and sent by streaming the file, never holding a 25 MB photo in memory.
public struct MultipartBody: Sendable {
    public let boundary: String
    public let prefix: [UInt8]
    public let filePath: String
    public let fileSize: Int
    public let suffix: [UInt8]

    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }
    public var totalLength: Int { prefix.count + fileSize + suffix.count }

    /// Builds the body of `photo`, reading only the file's size.
    public init(photo: PhotoUpload, boundary: String) throws {
        var info = stat()
        guard stat(photo.filePath, &info) == 0 else { throw FileReadError(path: photo.filePath, errno: errno) }
        self.boundary = boundary
        filePath = photo.filePath
        fileSize = Int(info.st_size)
        let fileName = "photo." + Self.fileExtension(for: photo.contentType)
        prefix = Array(
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(fileName)\"\r\n"
                + "Content-Type: \(photo.contentType)\r\n\r\n").utf8)
        var tail = "\r\n"
        let fields: [(String, String?)] = [
            ("latitude", photo.latitude.map { String($0) }), ("longitude", photo.longitude.map { String($0) }),
            ("accuracy", photo.accuracy.map { String($0) }), ("altitude", photo.altitude.map { String($0) }),
            ("captured_at", photo.capturedAt.map(ISO8601.format)),
        ]
        for case (let name, let value?) in fields {
            tail += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        tail += "--\(boundary)--\r\n"
        suffix = Array(tail.utf8)
    }

    /// A boundary that is the same on every retry of one upload (so a retried body is byte-identical
    /// and an idempotent platform sees the same request) yet unpredictable, since the key is a random
    /// UUID. 128 bits of hash make a collision with the photo's bytes practically impossible.
    public static func boundary(forIdempotencyKey key: String) -> String {
        "har-" + SHA256Stream.hash(Array(("multipart-boundary:" + key).utf8)).prefix(32)
    }

    /// A fresh random boundary.
    public static func randomBoundary() -> String { "har-" + Crypto.randomHex(bytes: 16) }

    /// The request signature over the whole body, computed by streaming the file.
    public func signature(path: String, secret: String) throws -> String {
        let stream = SignatureStream(secret: secret)
        stream.update(Signature.signedPath(path).utf8)
        stream.update(prefix)
        try stream.update(fileAt: filePath, range: 0..<fileSize)
        stream.update(suffix)
        return stream.finalize()
    }

    /// The whole body in memory. For tests and small files only.
    public func bufferedBytes() throws -> [UInt8] {
        var bytes = prefix
        try FileChunks.forEach(path: filePath, range: 0..<fileSize) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: suffix)
        return bytes
    }

    public static func fileExtension(for contentType: String) -> String {
        switch contentType.lowercased() {
        case "image/png": "png"
        case "image/webp": "webp"
        default: "jpg"
        }
    }
}

/// Reads a `MultipartBody` front to back into the buffers curl hands out, with rewind support (curl
/// resends a body when a reused connection turns out dead). Not thread-safe: one transfer owns it.
final class MultipartReader {
    private let body: MultipartBody
    private var position = 0
    private var fd: Int32 = -1

    init(body: MultipartBody) { self.body = body }

    deinit { if fd >= 0 { close(fd) } }

    var totalLength: Int { body.totalLength }

    /// Fills `buffer` with the next bytes; 0 at the end; nil on a read error (the file vanished or shrank).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var written = 0
        while written < buffer.count && position < body.totalLength {
            let room = buffer.count - written
            let fileStart = body.prefix.count
            let fileEnd = fileStart + body.fileSize
            let count: Int
            if position < fileStart {
                count = min(room, fileStart - position)
                copy(body.prefix, from: position, count: count, into: buffer, at: written)
            } else if position < fileEnd {
                guard
                    let got = readFile(
                        offset: position - fileStart, count: min(room, fileEnd - position),
                        into: buffer, at: written)
                else { return nil }
                count = got
            } else {
                count = min(room, body.totalLength - position)
                copy(body.suffix, from: position - fileEnd, count: count, into: buffer, at: written)
            }
            position += count
            written += count
        }
        return written
    }

    /// Moves to an absolute offset; false when out of range.
    func seek(to offset: Int) -> Bool {
        guard offset >= 0, offset <= body.totalLength else { return false }
        position = offset
        return true
    }

    private func copy(
        _ source: [UInt8], from start: Int, count: Int, into buffer: UnsafeMutableRawBufferPointer,
        at offset: Int
    ) {
        source.withUnsafeBytes { bytes in
            guard let from = bytes.baseAddress, let to = buffer.baseAddress else { return }
            (to + offset).copyMemory(from: from + start, byteCount: count)
        }
    }

    private func readFile(offset: Int, count: Int, into buffer: UnsafeMutableRawBufferPointer, at start: Int) -> Int? {
        if fd < 0 {
            fd = open(body.filePath, O_RDONLY | O_CLOEXEC)
            if fd < 0 { return nil }
        }
        guard let base = buffer.baseAddress else { return nil }
        while true {
            let got = pread(fd, base + start, count, off_t(offset))
            if got < 0 && errno == EINTR { continue }
            // 0 before the announced size means the file shrank since it was signed: fail the upload.
            return got > 0 ? got : nil
        }
    }
}
