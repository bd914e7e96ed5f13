import Basics

#if canImport(Glibc)
    import Glibc
#endif

/// The few EXIF values the app uses, read from a TIFF block by `TIFFReader`.
struct ExifMetadata: Equatable {
    var orientation: Int = 1
    var gps: GPSFix?

    enum Tag {
        static let orientation = 0x0112
        static let exifIFD = 0x8769
        static let gpsIFD = 0x8825
        static let dateTimeOriginal = 0x9003
        static let offsetTimeOriginal = 0x9011
        static let latitudeRef = 1, latitude = 2, longitudeRef = 3, longitude = 4
        static let altitudeRef = 5, altitude = 6, timeStamp = 7, status = 9, dateStamp = 0x1D
    }

    init() {}

    init?(tiff bytes: [UInt8]) {
        guard let tiff = TIFFReader(bytes) else { return nil }
        let ifd0 = tiff.entries(at: tiff.firstIFD)
        if let entry = ifd0.first(where: { $0.tag == Tag.orientation }), let value = tiff.integer(entry),
            (1...8).contains(value)
        {
            orientation = value
        }
        let exif = ifd0.first { $0.tag == Tag.exifIFD }.flatMap(tiff.pointer).map(tiff.entries) ?? []
        guard let gpsIFD = ifd0.first(where: { $0.tag == Tag.gpsIFD }).flatMap(tiff.pointer) else { return }
        gps = Self.fix(tiff, gps: tiff.entries(at: gpsIFD), exif: exif)
    }

    private static func fix(_ tiff: TIFFReader, gps: [TIFFReader.Entry], exif: [TIFFReader.Entry]) -> GPSFix? {
        func entry(_ tag: Int, in list: [TIFFReader.Entry] = gps) -> TIFFReader.Entry? {
            list.first { $0.tag == tag }
        }
        // A receiver that had no fix marks the record void ("V"); some write 0/0 then.
        if let status = entry(Tag.status).flatMap(tiff.string), status == "V" { return nil }
        guard
            let latitude = coordinate(tiff, entry(Tag.latitude), ref: entry(Tag.latitudeRef), negative: "S", limit: 90),
            let longitude = coordinate(
                tiff, entry(Tag.longitude), ref: entry(Tag.longitudeRef), negative: "W", limit: 180),
            latitude != 0 || longitude != 0
        else { return nil }

        var altitude: Double?
        if let value = entry(Tag.altitude).flatMap({ tiff.rational($0, index: 0) }), value.isFinite, value >= 0,
            value < 100_000
        {
            let below = entry(Tag.altitudeRef).flatMap { tiff.integer($0) } == 1
            altitude = below ? -value : value
        }
        let captured =
            gpsTime(tiff, date: entry(Tag.dateStamp), time: entry(Tag.timeStamp))
            ?? originalTime(
                tiff, date: entry(Tag.dateTimeOriginal, in: exif), offset: entry(Tag.offsetTimeOriginal, in: exif))
        return GPSFix(latitude: latitude, longitude: longitude, altitude: altitude, capturedAt: captured)
    }

    /// Degrees from three rationals (degrees, minutes, seconds) and an "N"/"S" or "E"/"W" reference
    /// (missing reference: positive).
    private static func coordinate(
        _ tiff: TIFFReader, _ entry: TIFFReader.Entry?, ref: TIFFReader.Entry?, negative: String, limit: Double
    ) -> Double? {
        guard let entry, entry.count >= 1 else { return nil }
        var degrees = 0.0
        for (index, scale) in [1.0, 60.0, 3600.0].enumerated() where index < entry.count {
            guard let part = tiff.rational(entry, index: index), part.isFinite, part >= 0 else { return nil }
            degrees += part / scale
        }
        guard degrees <= limit else { return nil }
        guard let ref else { return degrees }
        switch tiff.string(ref) {
        case "N", "E": return degrees
        case negative: return -degrees
        default: return nil
        }
    }

    /// "YYYY-MM-DDTHH:MM:SSZ" from GPSDateStamp "YYYY:MM:DD" and GPSTimeStamp (three rationals, UTC).
    private static func gpsTime(_ tiff: TIFFReader, date: TIFFReader.Entry?, time: TIFFReader.Entry?) -> String? {
        guard let date = date.flatMap(tiff.string).flatMap(parseDate), let time, time.count == 3 else { return nil }
        var parts: [Int] = []
        for index in 0..<3 {
            guard let value = tiff.rational(time, index: index), value.isFinite, value >= 0, value < 61 else {
                return nil
            }
            parts.append(Int(value))
        }
        return CivilTime(date: date, hour: parts[0], minute: parts[1], second: parts[2])?.iso8601(zone: "Z")
    }

    /// DateTimeOriginal "YYYY:MM:DD HH:MM:SS" is the camera's local time: converted to UTC with
    /// OffsetTimeOriginal ("+01:00") when present, else written without a zone.
    private static func originalTime(_ tiff: TIFFReader, date: TIFFReader.Entry?, offset: TIFFReader.Entry?) -> String?
    {
        guard let text = date.flatMap(tiff.string), text.utf8.count >= 19,
            let day = parseDate(String(text.prefix(10))),
            let clock = numbers(String(text.dropFirst(11).prefix(8)), separator: ":"), clock.count == 3,
            let local = CivilTime(date: day, hour: clock[0], minute: clock[1], second: clock[2])
        else { return nil }
        guard let zone = offset.flatMap(tiff.string), zone.utf8.count == 6,
            let sign = zone.first, sign == "+" || sign == "-",
            let hm = numbers(String(zone.dropFirst()), separator: ":"), hm.count == 2, hm[0] <= 14, hm[1] < 60
        else { return local.iso8601(zone: "") }
        let minutes = (hm[0] * 60 + hm[1]) * (sign == "+" ? 1 : -1)
        return local.adding(seconds: -minutes * 60).iso8601(zone: "Z")
    }

    private static func parseDate(_ text: String) -> (Int, Int, Int)? {
        guard let parts = numbers(text, separator: ":"), parts.count == 3 else { return nil }
        return (parts[0], parts[1], parts[2])
    }

    private static func numbers(_ text: String, separator: Character) -> [Int]? {
        let fields = text.split(separator: separator, omittingEmptySubsequences: false)
        let values = fields.compactMap { field in field.allSatisfy(\.isASCII) ? Int(field) : nil }
        return values.count == fields.count ? values : nil
    }
}

/// A validated calendar date and time of day, without zone.
struct CivilTime {
    let year, month, day, hour, minute, second: Int

    init?(date: (Int, Int, Int), hour: Int, minute: Int, second: Int) {
        let (year, month, day) = date
        guard (1900...2999).contains(year), (1...12).contains(month), (1...31).contains(day),
            day <= ISO8601.daysIn(month: month, year: year),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (
            year, month, day, hour, minute, min(second, 59)
        )
    }

    /// The same wall-clock moment `seconds` later (or earlier), in the same zone. The C library's
    /// timegm and gmtime_r do the calendar arithmetic (month lengths, leap years, year ends).
    func adding(seconds: Int) -> CivilTime {
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (Int32(hour), Int32(minute), Int32(second))
        var moment = timegm(&parts) + time_t(seconds)
        var shifted = tm()
        gmtime_r(&moment, &shifted)
        return CivilTime(
            year: Int(shifted.tm_year) + 1900, month: Int(shifted.tm_mon) + 1, day: Int(shifted.tm_mday),
            hour: Int(shifted.tm_hour), minute: Int(shifted.tm_min), second: Int(shifted.tm_sec))
    }

    private init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (
            year, month, day, hour, minute, second
        )
    }

    func iso8601(zone: String) -> String {
        ISO8601.format(year: year, month: month, day: day, hour: hour, minute: minute, second: second, zone: zone)
    }
}
