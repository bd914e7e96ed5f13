/// SipHash-2-4 (Aumasson and Bernstein, 2012): a pseudorandom function of a 128-bit secret key, so
/// its output says nothing about its input to anyone without the key, yet it is a few hundred
/// instructions for a few hundred bytes where SHA-256 is ~10,000. For values that must be opaque and
/// are made and checked by the same holder of the key (the list's ETag), not for anything
/// that must be verified by someone else or kept beyond the key's life.
public struct SipHash24: Sendable {
    private let k0: UInt64
    private let k1: UInt64

    /// The key's 16 bytes, read as two little-endian words (as the reference does).
    public init(key: [UInt8]) {
        precondition(key.count == 16, "SipHash needs a 16-byte key")
        k0 = SipHash24.word(key, 0)
        k1 = SipHash24.word(key, 8)
    }

    public func hash(_ message: [UInt8]) -> UInt64 {
        message.withUnsafeBufferPointer { hash(buffer: $0) }
    }

    public func hash(buffer message: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var v0: UInt64 = k0 ^ 0x736f_6d65_7073_6575
        var v1: UInt64 = k1 ^ 0x646f_7261_6e64_6f6d
        var v2: UInt64 = k0 ^ 0x6c79_6765_6e65_7261
        var v3: UInt64 = k1 ^ 0x7465_6462_7974_6573

        @inline(__always) func round() {
            v0 &+= v1
            v1 = v1.rotatedLeft(13) ^ v0
            v0 = v0.rotatedLeft(32)
            v2 &+= v3
            v3 = v3.rotatedLeft(16) ^ v2
            v0 &+= v3
            v3 = v3.rotatedLeft(21) ^ v0
            v2 &+= v1
            v1 = v1.rotatedLeft(17) ^ v2
            v2 = v2.rotatedLeft(32)
        }

        let count = message.count
        let whole = count & ~7
        let raw = UnsafeRawBufferPointer(message)
        var offset = 0
        while offset < whole {
            // One unaligned 8-byte load, read little-endian as the reference does.
            let m = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            v3 ^= m
            round()
            round()
            v0 ^= m
            offset += 8
        }
        // The last word: the remaining bytes, and the length's low byte on top.
        var last = UInt64(truncatingIfNeeded: count) << 56
        for byte in 0..<(count - whole) { last |= UInt64(message[whole + byte]) << (8 * UInt64(byte)) }
        v3 ^= last
        round()
        round()
        v0 ^= last
        v2 ^= 0xff
        round()
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    private static func word(_ bytes: [UInt8], _ start: Int) -> UInt64 {
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(bytes[start + index]) << (8 * UInt64(index)) }
        return word
    }
}

extension UInt64 {
    @inline(__always) fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
