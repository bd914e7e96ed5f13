import Basics
import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A request signature computed piece by piece, for bodies that live in a file (a 25 MB multipart
/// photo body is never held whole in memory). Feed the signed path first, then the body bytes.
public final class SignatureStream {
    private let context: OpaquePointer

    public init(secret: String) {
        let key = Array(secret.utf8)
        let made = key.withUnsafeBufferPointer { har_hmac_new("SHA1", $0.baseAddress, $0.count) }
        // Only a libcrypto without HMAC-SHA1 fails here: the installation is broken, not the input.
        guard let made else { preconditionFailure("libcrypto cannot create an HMAC-SHA1 context") }
        context = made
    }

    deinit { EVP_MAC_CTX_free(context) }

    public func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            _ = EVP_MAC_update(context, buffer.baseAddress, buffer.count)
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { _ = EVP_MAC_update(context, $0.baseAddress, $0.count) }
        }
    }

    /// Feeds `range` of a file's bytes (all of it when nil), read in 64 KB chunks.
    public func update(fileAt path: String, range: Range<Int>? = nil) throws {
        try FileChunks.forEach(path: path, range: range) { chunk in
            _ = EVP_MAC_update(context, chunk.baseAddress, chunk.count)
        }
    }

    /// The lowercase hex signature. Call once.
    public func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_MAC_final(context, $0.baseAddress, &length, $0.count) }
        return Hex.encode(digest.prefix(length))
    }
}

/// A file could not be read for signing or hashing.
public struct FileReadError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var errno: Int32

    public init(path: String, errno: Int32) {
        self.path = path
        self.errno = errno
    }

    public var description: String { "cannot read \(path) (errno \(errno))" }
}

/// Reads a file (or a byte range of it) in fixed-size chunks through POSIX calls.
public enum FileChunks {
    public static let chunkSize = 64 * 1024

    public static func forEach(
        path: String, range: Range<Int>?, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(path: path, errno: errno) }
        defer { close(fd) }
        var offset = range?.lowerBound ?? 0
        let end = range?.upperBound ?? Int.max
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while offset < end {
            let wanted = min(chunkSize, end - offset)
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(offset)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, errno: errno)
            }
            if got == 0 {
                // A range past the end of the file is a caller's mistake worth reporting, not a short hash.
                if range != nil { throw FileReadError(path: path, errno: EIO) }
                break
            }
            try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<got])) }
            offset += got
        }
    }
}
