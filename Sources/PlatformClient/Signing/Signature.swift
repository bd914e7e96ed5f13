import COpenSSL

/// The request signature of the contract: lowercase hex of HMAC-SHA1(secret, path + body), where the
/// key is the consumer secret's UTF-8 bytes as they are (it looks like base64: it is not decoded) and
/// the path has no leading "/" and no query.
public enum Signature {
    /// The signature of a request whose whole body is in memory.
    public static func sign(path: String, body: some Sequence<UInt8>, secret: String) -> String {
        let stream = SignatureStream(secret: secret)
        stream.update(signedPath(path).utf8)
        stream.update(body)
        return stream.finalize()
    }

    /// The part of the path that is signed: no leading "/", no query string.
    public static func signedPath(_ path: String) -> Substring {
        var rest = Substring(path)
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        return rest
    }

    /// Compares two signatures in constant time, so that a receiver's answer time does not reveal how
    /// many leading characters of a forged signature were right.
    public static func matches(_ expected: String, _ received: String) -> Bool {
        let a = Array(expected.utf8)
        let b = Array(received.utf8)
        guard a.count == b.count, !a.isEmpty else { return false }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }
}
