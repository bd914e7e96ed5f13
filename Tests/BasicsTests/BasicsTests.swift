// BasicsTests: the shared helpers' edge cases (hex of every byte and malformed hex, ISO 8601 around
// the epoch and leap days, the wall clock).
import Basics
import Foundation
import Testing

@Suite struct HexTests {
    @Test func encodesBothCasesAndDecodesEither() throws {
        let bytes: [UInt8] = [0x00, 0x0F, 0xA5, 0xFF]
        #expect(Hex.encode(bytes) == "000fa5ff")
        #expect(Hex.encode(bytes, uppercase: true) == "000FA5FF")
        #expect(Hex.decode("000fa5ff") == bytes)
        #expect(Hex.decode("000FA5fF") == bytes)
        #expect(Hex.decode("") == [])
    }

    @Test func refusesWhatIsNotEvenLengthHex() {
        for text in ["0", "abc", "0g", "zz", " 00", "00 ", "0x00", "é0"] {
            #expect(Hex.decode(text) == nil, "\(text)")
        }
    }

    /// `isDigit` accepts exactly the bytes `decode` does, of all 256.
    @Test func isDigitAgreesWithDecodeOnEveryByte() {
        for byte in UInt8.min...UInt8.max {
            let decodable = Hex.decode(String(decoding: [byte, byte], as: UTF8.self)) != nil
            #expect(Hex.isDigit(byte) == decodable, "\(byte)")
        }
    }

    @Test func roundTripsEveryByte() {
        let all = (0...255).map(UInt8.init)
        #expect(Hex.decode(Hex.encode(all)) == all)
    }
}

@Suite struct DecimalDigitsTests {
    /// The same digits as `String(value)`, appended after what the buffer held.
    @Test(arguments: [0, 1, -1, 9, 10, -10, 99, 100, 1_000_000_007, Int64.max, Int64.min, Int64.min + 1])
    func spellsAsStringDoes(value: Int64) {
        var bytes = Array("x|".utf8)
        DecimalDigits.append(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x|" + String(value))
        var fromInt: [UInt8] = []
        DecimalDigits.append(Int(value), to: &fromInt)
        #expect(fromInt == Array(String(value).utf8))
    }
}

@Suite struct TimeFormatTests {
    @Test func utcCutsTheFractionToTheDigitsAsked() {
        // 2026-11-29T14:41:17Z is 1_795_963_277 s after the epoch (checked against ISO8601.parse below).
        let seconds = 1_795_963_277.987_654
        #expect(ISO8601.utc(seconds: seconds) == "2026-11-29T14:41:17Z")
        #expect(ISO8601.utc(seconds: seconds, fractionDigits: 3) == "2026-11-29T14:41:17.987Z")
        #expect(ISO8601.parse(ISO8601.utc(seconds: seconds))?.timeIntervalSince1970 == 1_795_963_277)
        #expect(ISO8601.utc(seconds: 0, fractionDigits: 3) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.utc(seconds: -0.5, fractionDigits: 3) == "1969-12-31T23:59:59.500Z")
        #expect(ISO8601.utc(seconds: 951_782_400) == "2000-02-29T00:00:00Z")
    }

    @Test func utcAgreesWithTheMicrosecondFormat() {
        for seconds in [0.0, 86_399, 1_795_963_277, 4_102_444_799, -1] {
            let long = ISO8601.format(Date(timeIntervalSince1970: seconds))
            #expect(long.hasPrefix(String(ISO8601.utc(seconds: seconds).dropLast())), "\(seconds)")
        }
    }

    @Test func civilTimesKeepTheirZoneAsGiven() {
        #expect(
            ISO8601.format(year: 2024, month: 2, day: 29, hour: 23, minute: 5, second: 9, zone: "")
                == "2024-02-29T23:05:09")
        #expect(
            ISO8601.format(year: 987, month: 1, day: 2, hour: 3, minute: 4, second: 5, zone: "Z")
                == "0987-01-02T03:04:05Z")
        #expect(ISO8601.daysIn(month: 2, year: 2024) == 29 && ISO8601.daysIn(month: 2, year: 1900) == 28)
        #expect(ISO8601.daysIn(month: 2, year: 2000) == 29 && ISO8601.daysIn(month: 4, year: 2026) == 30)
    }

    @Test func wallClockIsTheSystemTime() {
        let before = Date().timeIntervalSince1970
        let now = WallClock.now()
        let after = Date().timeIntervalSince1970
        #expect(before <= now && now <= after)
    }
}

@Suite struct SipHashTests {
    /// The reference's key (0x00..0x0f) and messages (0x00, 0x01, ... of each length).
    let sip = SipHash24(key: Array(0..<16))

    @Test func givesThePapersTestVectors() {
        #expect(sip.hash([]) == 0x726f_db47_dd0e_0e31)
        #expect(sip.hash(Array(0..<15)) == 0xa129_ca61_49be_45e5)
        // The reference's vectors.h around the word boundaries (its bytes read little-endian).
        #expect(sip.hash(Array(0..<7)) == 0xab02_00f5_8b01_d137)
        #expect(sip.hash(Array(0..<8)) == 0x93f5_f579_9a93_2462)
        #expect(sip.hash(Array(0..<16)) == 0x3f2a_cc7f_57c2_9bdb)
        #expect(sip.hash(Array(0..<63)) == 0x958a_324c_eb06_4572)
        // Read from a buffer that does not start on a word boundary.
        let shifted: [UInt8] = [0xFF] + Array(0..<16)
        #expect(
            shifted.withUnsafeBufferPointer { sip.hash(buffer: UnsafeBufferPointer(rebasing: $0[1...])) }
                == sip.hash(Array(0..<16)))
    }

    @Test func dependsOnTheKeyAndEveryByte() {
        let message: [UInt8] = Array("user|7|fr|csrf".utf8)
        var other = message
        other[other.count - 1] ^= 1
        #expect(sip.hash(message) != sip.hash(other))
        #expect(sip.hash(message) != SipHash24(key: Array(1..<17)).hash(message))
        // The length is part of the last word: a trailing zero byte changes the value.
        #expect(sip.hash([1, 2, 3]) != sip.hash([1, 2, 3, 0]))
    }
}
