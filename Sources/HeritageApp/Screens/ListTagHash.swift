import Basics
import PlatformClient

/// The hash that makes the list's ETag out of what the answer depends on (`ReportListScreen.listTag`).
///
/// What the tag must not reveal: its text holds the session's CSRF token, the user's e-mail address,
/// name and settings, and the list's query. A tag is sent to the browser and may be seen by whatever
/// handles the response (a proxy's log, an extension, the HAR file of a support request), so nobody
/// may learn any of that from it, nor confirm a guess of it (is this the tag of "alice@…"?), nor tell
/// two users' tags apart by anything but their being different. What it must do: differ whenever any
/// of that text differs (the language, the encoding chosen later by `Compression`, the query...), with
/// no practical chance of two texts giving one tag, and never match across processes (a new build
/// has other templates).
///
/// SipHash-2-4 is a pseudorandom function of its key: under a key that is random for each process and
/// never leaves it, its values are indistinguishable from random to anyone without the key, so they
/// reveal nothing and cannot be checked against a guess; and a new process has a new key, so its tags
/// never match the old ones (this replaces the random epoch the text used to start with). Two keys give
/// 128 bits, as the SHA-256 prefix did, for ~3,000 instructions instead of ~10,000.
enum ListTagHash {
    private static let keys = (SipHash24(key: Crypto.randomBytes(16)), SipHash24(key: Crypto.randomBytes(16)))

    /// The quoted tag: 32 hex digits, each word's most significant first, written straight into the
    /// String (the words as a byte array, its hex and two concatenations cost ~3,000 instructions per
    /// 304 where the two hashes cost ~1,500).
    static func tag(_ text: [UInt8]) -> String {
        let (first, second) = text.withUnsafeBufferPointer { (keys.0.hash(buffer: $0), keys.1.hash(buffer: $0)) }
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 34) { out in
            digits.withUTF8Buffer { digits in
                func put(_ word: UInt64, at start: Int) {
                    for index in 0..<16 {
                        out[start + index] = digits[Int(truncatingIfNeeded: (word >> UInt64(60 - 4 * index)) & 0xF)]
                    }
                }
                out[0] = UInt8(ascii: "\"")
                put(first, at: 1)
                put(second, at: 17)
                out[33] = UInt8(ascii: "\"")
            }
            return 34
        }
    }
}
