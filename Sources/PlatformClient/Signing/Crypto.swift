import Basics
import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// The few other primitives the platform needs from libcrypto: SHA-256, PBKDF2, random bytes.
public enum Crypto {
    /// Cryptographically random bytes (session ids, salts, multipart boundaries).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        filled(count) { RAND_bytes($0, Int32($1)) }
    }

    public static func randomHex(bytes count: Int) -> String { Hex.encode(randomBytes(count)) }

    /// Cryptographically random bytes for a mask made afresh for every response (`CSRFMask`), from a
    /// buffer of this thread that `RAND_bytes` fills 1 KiB at a time (`har_mask_random_bytes`): one
    /// `RAND_bytes` per page cost a `getpid` system call and the DRBG's set-up. Never for secrets
    /// (keys, session ids, salts), which take `randomBytes`.
    public static func maskBytes(_ count: Int) -> [UInt8] {
        filled(count) { har_mask_random_bytes($0, $1) }
    }

    /// `count` bytes from `fill` (RAND_bytes or its buffered form). RAND_bytes fails only when the
    /// system's entropy source is unusable; carrying on would hand out guessable session ids.
    private static func filled(_ count: Int, by fill: (UnsafeMutablePointer<UInt8>?, Int) -> Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { fill($0.baseAddress, $0.count) }
        guard ok == 1 else { preconditionFailure("RAND_bytes failed: no usable entropy source") }
        return bytes
    }

    /// PBKDF2-HMAC-SHA256 of a password, 32 bytes.
    public static func pbkdf2SHA256(password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let length = Int32(password.utf8.count)
        let ok = password.withCString { pc in
            salt.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    PKCS5_PBKDF2_HMAC(
                        pc, length, s.baseAddress, Int32(s.count), Int32(iterations), EVP_sha256(),
                        Int32(o.count), o.baseAddress)
                }
            }
        }
        guard ok == 1 else { preconditionFailure("PKCS5_PBKDF2_HMAC failed") }
        return out
    }

    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }
}

/// SHA-256 fetched from libcrypto's default provider once. With `EVP_sha256()` every
/// `EVP_DigestInit_ex` fetched it anew (OpenSSL 3's implicit fetch): ~2,300 of the ~8,500 instructions
/// of the session token's digest on every signed-in request (callgrind). Never freed: one per process.
/// @unchecked Sendable: a fetched EVP_MD is immutable and libcrypto allows sharing it between threads.
private struct FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer
    static let sha256 = EVP_MD_fetch(nil, "SHA256", nil).map(FetchedDigest.init)
}

/// SHA-256 computed piece by piece (photo files are hashed as they are stored).
public final class SHA256Stream {
    private let context: OpaquePointer

    public init() {
        let algorithm = FetchedDigest.sha256?.pointer ?? EVP_sha256()
        guard let made = EVP_MD_CTX_new(), EVP_DigestInit_ex(made, algorithm, nil) == 1 else {
            preconditionFailure("libcrypto cannot create a SHA-256 context")
        }
        context = made
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { update($0) } }

    public func finalize() -> String { Hex.encode(finalizeBytes()) }

    /// The digest's 32 bytes.
    public func finalizeBytes() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        digest.removeLast(digest.count - Int(length))
        return digest
    }

    /// The hex SHA-256 of a whole file.
    public static func hashFile(at path: String) throws -> String {
        let stream = SHA256Stream()
        try FileChunks.forEach(path: path, range: nil) { stream.update($0) }
        return stream.finalize()
    }

    public static func hash(_ bytes: [UInt8]) -> String {
        let stream = SHA256Stream()
        stream.update(bytes)
        return stream.finalize()
    }

    /// SHA-256 of `bytes` as its 32 bytes (no hex on the way).
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { digest(buffer: $0) }
    }

    /// SHA-256 of `bytes` as its 32 bytes, through the calling thread's own context (`ThreadDigestContext`)
    /// instead of a context made and freed per call: the session token's digest on every signed-in
    /// request.
    public static func digest(buffer bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let context = ThreadDigestContext.current()
        let algorithm = FetchedDigest.sha256?.pointer ?? EVP_sha256()
        return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            var length: UInt32 = 0
            guard EVP_DigestInit_ex(context, algorithm, nil) == 1,
                EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1,
                EVP_DigestFinal_ex(context, out.baseAddress, &length) == 1, length == 32
            else { preconditionFailure("libcrypto's SHA-256 failed") }
            count = 32
        }
    }
}

/// One SHA-256 context per thread, made at the thread's first digest, initialised afresh for each
/// digest and freed when the thread ends (a thread-specific key's destructor). Never shared: a context
/// is used by one call at a time, on the thread that owns it. What it holds between calls is the last
/// digest's state, which is that digest (the store keeps token digests, never tokens).
private enum ThreadDigestContext {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, { EVP_MD_CTX_free(OpaquePointer($0)) }) == 0 else {
            preconditionFailure("no thread-specific key for SHA-256 contexts")
        }
        return key
    }()

    static func current() -> OpaquePointer {
        if let existing = pthread_getspecific(key) { return OpaquePointer(existing) }
        guard let made = EVP_MD_CTX_new() else { preconditionFailure("libcrypto cannot create a SHA-256 context") }
        guard pthread_setspecific(key, UnsafeRawPointer(made)) == 0 else {
            preconditionFailure("cannot keep a thread's SHA-256 context")
        }
        return made
    }
}
