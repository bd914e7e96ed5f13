import FoundationEssentials

/// ISO 8601 date-times, the one parser and formatter of the application. Read as the platform writes
/// them: `2026-11-29T15:41:17+01:00`, `…Z`, `…17.123456+00:00`. Written by hand because FoundationEssentials'
/// formatters are heavier than this one shape needs, and because the offset and fraction must both be optional.
public enum ISO8601 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2), scanner.skip(":"),
            let second = scanner.digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") || scanner.skip(",") {
            var scale = 0.1
            var any = false
            while let digit = scanner.digits(1) {
                fraction += Double(digit) * scale
                scale /= 10
                any = true
            }
            guard any else { return nil }
        }
        var offsetSeconds = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offsetSeconds = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.digits(2) else { return nil }
            _ = scanner.skip(":")
            guard let minutes = scanner.digits(2), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil  // A time without an offset is ambiguous; the contract always gives one.
        }
        guard scanner.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // Only instants that `format` writes back in this shape (UTC years 0000 to 9999): a leap second,
        // an offset or a long fraction at either end gave a date whose text no longer parsed (fuzzing).
        let interval = Double(seconds) + fraction
        guard interval >= firstInstant, interval < endInstant else { return nil }
        return Date(timeIntervalSince1970: interval)
    }

    /// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in seconds since 1970.
    static let firstInstant = Double(daysFromCivil(year: 0, month: 1, day: 1) * 86400)
    static let endInstant = Double(daysFromCivil(year: 10000, month: 1, day: 1) * 86400)

    /// Formats in UTC with microseconds, `2026-11-29T14:41:17.123456+00:00`.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var whole = Int(interval.rounded(.down))
        var micros = Int(((interval - Double(whole)) * 1_000_000).rounded())
        if micros >= 1_000_000 {
            whole += 1
            micros -= 1_000_000
        }
        let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
        let secondsOfDay = whole - days * 86400
        let (year, month, day) = civilFromDays(days)
        // Digits into one 32-byte buffer: the report list formats a date per row, and building the text
        // from a score of padded Strings was 6% of that page (perf).
        var bytes = Array("0000-00-00T00:00:00.000000+00:00".utf8)
        put(month, width: 2, at: 5, in: &bytes)
        put(day, width: 2, at: 8, in: &bytes)
        put(secondsOfDay / 3600, width: 2, at: 11, in: &bytes)
        put(secondsOfDay / 60 % 60, width: 2, at: 14, in: &bytes)
        put(secondsOfDay % 60, width: 2, at: 17, in: &bytes)
        put(micros, width: 6, at: 20, in: &bytes)
        guard (0...9999).contains(year) else {
            // Not a date anyone reports heritage on; still written whole rather than cut to four digits.
            return String(year) + String(decoding: bytes[4...], as: UTF8.self)
        }
        put(year, width: 4, at: 0, in: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff…]Z` in UTC with the fraction cut, not rounded, to `fractionDigits` (0 to 9):
    /// the log's timestamps (3) and a photo's captured_at when neither the device nor EXIF gave one (0).
    public static func utc(seconds: Double, fractionDigits: Int = 0) -> String {
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
        let secondsOfDay = whole - days * 86400
        let (year, month, day) = civilFromDays(days)
        var zone: [UInt8] = []
        let digits = min(max(fractionDigits, 0), 9)
        if digits > 0 {
            var scale = 1
            for _ in 0..<digits { scale *= 10 }
            let fraction = min(Int((seconds - Double(whole)) * Double(scale)), scale - 1)
            zone = [UInt8(ascii: ".")] + Array(repeating: UInt8(ascii: "0"), count: digits)
            put(fraction, width: digits, at: 1, in: &zone)
        }
        zone.append(UInt8(ascii: "Z"))
        return civil(
            year: year, month: month, day: day, hour: secondsOfDay / 3600, minute: secondsOfDay / 60 % 60,
            second: secondsOfDay % 60, then: zone)
    }

    /// A wall-clock time as `YYYY-MM-DDTHH:MM:SS` followed by `zone` as given (`Z`, or nothing when the
    /// zone is unknown): the time a photo's EXIF says it was taken.
    public static func format(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, zone: String
    ) -> String {
        civil(year: year, month: month, day: day, hour: hour, minute: minute, second: second, then: Array(zone.utf8))
    }

    private static func civil(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, then tail: [UInt8]
    ) -> String {
        var bytes = Array("0000-00-00T00:00:00".utf8)
        put(month, width: 2, at: 5, in: &bytes)
        put(day, width: 2, at: 8, in: &bytes)
        put(hour, width: 2, at: 11, in: &bytes)
        put(minute, width: 2, at: 14, in: &bytes)
        put(second, width: 2, at: 17, in: &bytes)
        bytes += tail
        guard (0...9999).contains(year) else { return String(year) + String(decoding: bytes[4...], as: UTF8.self) }
        put(year, width: 4, at: 0, in: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the last `width` decimal digits of a non-negative `value` at `start`.
    private static func put(_ value: Int, width: Int, at start: Int, in bytes: inout [UInt8]) {
        var rest = value
        var index = start + width - 1
        while index >= start {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
    }

    /// The days in a month of the proleptic Gregorian calendar.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days: proleptic Gregorian calendar, day 0 = 1970-01-01.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
    }
}
