import Testing

@testable import Imaging

@Suite struct ExifTests {
    let directory = TemporaryDirectory()

    func jpeg(with tiff: [UInt8], name: String = "exif.jpg") -> String {
        directory.image("plain-\(name)", width: 400, height: 200, format: .jpeg)
        return directory.write(splice(exif: tiff, into: directory.read("plain-\(name)")), to: name)
    }

    @Test func parisLittleEndianWithGPSTime() throws {
        let b = TIFFBuilder(bigEndian: false)
        let tiff = b.tiff(
            ifd0: [b.short(0x0112, 1)],
            gps: [
                b.ascii(1, "N"), b.rationals(2, [(48, 1), (51, 1), (108, 10)]),
                b.ascii(3, "E"), b.rationals(4, [(2, 1), (21, 1), (36, 10)]),
                b.byte(5, 0), b.rationals(6, [(355, 10)]),
                b.rationals(7, [(12, 1), (34, 1), (5600, 100)]), b.ascii(0x1D, "2024:05:01"),
            ],
            exif: [b.ascii(0x9003, "2024:05:01 14:34:56")])
        let path = jpeg(with: tiff)
        let fix = try #require(Imaging.gpsFix(path: path))
        #expect(abs(fix.latitude - 48.853) < 1e-6)
        #expect(abs(fix.longitude - 2.351) < 1e-6)
        #expect(fix.altitude == 35.5)
        #expect(fix.capturedAt == "2024-05-01T12:34:56Z")  // GPS time wins over DateTimeOriginal
        #expect(try Imaging.inspect(path: path).width == 400)  // the EXIF-bearing JPEG still decodes
    }

    @Test func southWestBelowSeaLevelBigEndianWithOriginalTimeAndOffset() throws {
        let b = TIFFBuilder(bigEndian: true)
        let tiff = b.tiff(
            ifd0: [b.short(0x0112, 6)],
            gps: [
                b.ascii(1, "S"), b.rationals(2, [(33, 1), (5130, 100), (0, 1)]),
                b.ascii(3, "W"), b.rationals(4, [(70, 1), (39, 1), (36, 1)]),
                b.byte(5, 1), b.rationals(6, [(861, 2)]),
            ],
            exif: [b.ascii(0x9003, "2024:01:01 01:30:00"), b.ascii(0x9011, "+02:00")])
        let path = jpeg(with: tiff)
        let fix = try #require(Imaging.gpsFix(path: path))
        #expect(abs(fix.latitude - -(33 + 51.3 / 60)) < 1e-9)
        #expect(abs(fix.longitude - -(70 + 39.0 / 60 + 36.0 / 3600)) < 1e-9)
        #expect(fix.altitude == -430.5)
        #expect(fix.capturedAt == "2023-12-31T23:30:00Z")  // local time minus its offset, across a year
        #expect(Imaging.orientation(path: path) == 6)
    }

    @Test func originalTimeWithoutOffsetHasNoZoneAndMissingPartsAreNil() throws {
        let b = TIFFBuilder(bigEndian: true)
        let tiff = b.tiff(
            ifd0: [],
            gps: [
                b.ascii(1, "N"), b.rationals(2, [(51, 1), (30, 1), (0, 1)]), b.ascii(3, "W"),
                b.rationals(4, [(0, 1), (7, 1), (3, 1)]),
            ],
            exif: [b.ascii(0x9003, "2024:02:29 23:59:59")])
        let fix = try #require(Imaging.gpsFix(path: jpeg(with: tiff)))
        #expect(fix.altitude == nil)
        #expect(fix.capturedAt == "2024-02-29T23:59:59")
        #expect(Imaging.orientation(path: jpeg(with: tiff, name: "b.jpg")) == 1)
    }

    @Test func voidOrMissingOrInvalidPositionsAreNil() {
        let b = TIFFBuilder(bigEndian: false)
        let lat = b.rationals(2, [(48, 1), (51, 1), (108, 10)])
        let lon = b.rationals(4, [(2, 1), (21, 1), (36, 10)])
        let cases: [(String, [UInt8])] = [
            ("no-gps", b.tiff(ifd0: [b.short(0x0112, 3)])),
            ("void", b.tiff(ifd0: [], gps: [b.ascii(9, "V"), lat, lon])),
            ("no-longitude", b.tiff(ifd0: [], gps: [lat])),
            (
                "zero-zero",
                b.tiff(
                    ifd0: [],
                    gps: [b.rationals(2, [(0, 1), (0, 1), (0, 1)]), b.rationals(4, [(0, 1), (0, 1), (0, 1)])])
            ),
            ("bad-ref", b.tiff(ifd0: [], gps: [b.ascii(1, "X"), lat, lon])),
            ("over-90", b.tiff(ifd0: [], gps: [b.rationals(2, [(91, 1), (0, 1), (0, 1)]), lon])),
            ("zero-denominator", b.tiff(ifd0: [], gps: [b.rationals(2, [(48, 0), (0, 1), (0, 1)]), lon])),
            ("wrong-type", b.tiff(ifd0: [], gps: [b.short(2, 48), lon])),
        ]
        for (name, tiff) in cases {
            #expect(Imaging.gpsFix(path: jpeg(with: tiff, name: "\(name).jpg")) == nil, "\(name)")
        }
        #expect(Imaging.orientation(path: jpeg(with: cases[0].1, name: "o.jpg")) == 3)
        #expect(Imaging.orientation(path: jpeg(with: b.tiff(ifd0: [b.short(0x0112, 9)]), name: "o9.jpg")) == 1)
    }

    @Test func pngExifChunkAndWebPExifChunk() throws {
        let b = TIFFBuilder(bigEndian: false)
        let tiff = b.tiff(
            ifd0: [b.short(0x0112, 8)],
            gps: [
                b.ascii(1, "N"), b.rationals(2, [(48, 1), (51, 1), (108, 10)]), b.ascii(3, "E"),
                b.rationals(4, [(2, 1), (21, 1), (36, 10)]),
            ])

        directory.image("plain.png", width: 40, height: 20, format: .png)
        let png = directory.read("plain.png")
        let withExif = Array(png.prefix(33)) + pngChunk("eXIf", tiff) + png.dropFirst(33)
        let pngPath = directory.write(withExif, to: "exif.png")
        #expect(Imaging.orientation(path: pngPath) == 8)
        #expect(abs((Imaging.gpsFix(path: pngPath)?.latitude ?? 0) - 48.853) < 1e-6)
        #expect(try Imaging.inspect(path: pngPath) == ImageInfo(format: .png, width: 20, height: 40, orientation: 8))

        directory.image("plain.webp", width: 40, height: 20, format: .webp)
        // libvips 8.14 writes an EXIF chunk into WebP even with "strip": drop it, then append ours.
        var webp = Array(directory.read("plain.webp").prefix(12))
        var position = 12
        let original = directory.read("plain.webp")
        while position + 8 <= original.count {
            let length = original[(position + 4)..<(position + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let end = min(original.count, position + 8 + length + (length & 1))
            if !original[position...].starts(with: Array("EXIF".utf8)) { webp += original[position..<end] }
            position = end
        }
        let chunk = Array("EXIF".utf8) + littleEndian32(tiff.count) + tiff + (tiff.count.isMultiple(of: 2) ? [] : [0])
        webp += chunk
        webp.replaceSubrange(4..<8, with: littleEndian32(webp.count - 8))
        let webpPath = directory.write(webp, to: "exif.webp")
        #expect(Imaging.orientation(path: webpPath) == 8)
        #expect(abs((Imaging.gpsFix(path: webpPath)?.longitude ?? 0) - 2.351) < 1e-6)
    }

    @Test func civilTimeArithmetic() throws {
        let leap = try #require(CivilTime(date: (2024, 2, 29), hour: 23, minute: 0, second: 0))
        #expect(leap.adding(seconds: 3600).iso8601(zone: "Z") == "2024-03-01T00:00:00Z")
        #expect(leap.adding(seconds: -86_400 * 365).iso8601(zone: "Z") == "2023-03-01T23:00:00Z")
        #expect(CivilTime(date: (2023, 2, 29), hour: 0, minute: 0, second: 0) == nil)
        #expect(CivilTime(date: (2024, 4, 31), hour: 0, minute: 0, second: 0) == nil)
        #expect(CivilTime(date: (2024, 4, 1), hour: 24, minute: 0, second: 0) == nil)
    }
}

func littleEndian32(_ value: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(value >> $0 & 0xFF) } }
