// Basics: the small helpers every other target may share, with no C library and no other target
// below it: JSON values, hexadecimal, ISO 8601 times and the wall clock. Random tokens live in
// PlatformClient's `Crypto`, which links libcrypto.

/// Hexadecimal, the one coder for signatures, digests, ids and tokens (lowercase unless asked).
public enum Hex {
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        // Over contiguous bytes (arrays, slices: every caller) without the generic iterator: a digest's
        // hex was an eighth of a signed-in 304's instructions that way (bench/instructions.sh).
        if let text = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0, uppercase: uppercase) }) {
            return text
        }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0, uppercase: uppercase) }
    }

    private static func encode(buffer: UnsafeBufferPointer<UInt8>, uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return String(unsafeUninitializedCapacity: buffer.count * 2) { out in
            digits.withUTF8Buffer { digits in
                var index = 0
                for byte in buffer {
                    out[index] = digits[Int(byte >> 4)]
                    out[index + 1] = digits[Int(byte & 0x0F)]
                    index += 2
                }
            }
            return buffer.count * 2
        }
    }

    /// The bytes of even-length hex in either case; nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Whether `byte` is a hex digit in either case (what `decode` accepts), by two range checks:
    /// for checking a token without decoding it.
    @inlinable public static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
