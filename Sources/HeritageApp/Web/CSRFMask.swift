import Basics
import PlatformClient

/// BREACH: a compressed page that carries a secret next to text an attacker can inject
/// leaks the secret through the compressed length. Pages therefore never carry the CSRF token itself
/// but a masked copy made afresh for every response, as Rails and Django do: a random mask followed by
/// the mask XOR the token, in hex. Two responses carry different strings; the server unmasks what a
/// request sends back before comparing it, in constant time, with the session's token.
enum CSRFMask {
    /// `hex(mask ‖ (mask XOR token))` for a token in hex; the token unchanged if it is not hex.
    static func mask(_ token: String) -> String {
        guard let secret = Hex.decode(token), !secret.isEmpty else { return token }
        let mask = Crypto.maskBytes(secret.count)
        var masked = mask
        masked.reserveCapacity(secret.count * 2)
        for index in secret.indices { masked.append(mask[index] ^ secret[index]) }
        return Hex.encode(masked)
    }

    /// The token's bytes inside a value a request sent back: a masked copy (twice the token's
    /// length) is unmasked; the bare token (what pages carried before masking) is taken as it is.
    /// Nil when it is neither.
    static func tokenBytes(sent: String, tokenLength: Int) -> [UInt8]? {
        guard let bytes = Hex.decode(sent) else { return nil }
        if bytes.count == tokenLength { return bytes }
        guard bytes.count == tokenLength * 2 else { return nil }
        return (0..<tokenLength).map { bytes[$0] ^ bytes[tokenLength + $0] }
    }

    /// The request's value stands for `token` (hex), compared in constant time.
    static func matches(sent: String, token: String) -> Bool {
        guard let expected = Hex.decode(token), !expected.isEmpty,
            let received = tokenBytes(sent: sent, tokenLength: expected.count)
        else { return false }
        return Crypto.constantTimeEqual(received, expected)
    }
}
