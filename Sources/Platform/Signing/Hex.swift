// Platform: the client of the Heritage Observatory platform, the request signature, the shared
// models, and the local platform (a strict implementation of the contract). Folders: Signing (HMAC, digests,
// random bytes), Models (shared with the local platform), Client (libcurl on threads of its own),
// LocalPlatform (a strict implementation of the contract, for running and testing with no network).

/// Lowercase hexadecimal, the form the contract uses for signatures and ids.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
