// ImagingTests: libvips on real images (decoding, thumbnails, EXIF orientation and GPS) and on
// hostile files, which must be refused without crashing the process.
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import Imaging

@Suite struct ImagingTests {
    let directory = TemporaryDirectory()

    @Test func sniffsByMagicBytesOnly() {
        #expect(Imaging.sniff(path: directory.image("a.jpg", width: 40, height: 20, format: .jpeg)) == .jpeg)
        #expect(Imaging.sniff(path: directory.image("a.png", width: 40, height: 20, format: .png)) == .png)
        #expect(Imaging.sniff(path: directory.image("a.webp", width: 40, height: 20, format: .webp)) == .webp)
        // The name says nothing: a PNG called .jpg is a PNG.
        #expect(Imaging.sniff(path: directory.write(directory.read("a.png"), to: "png.jpg")) == .png)
        #expect(Imaging.sniff(path: directory.write(Array("RIFF\0\0\0\0WAVE".utf8), to: "riff.webp")) == nil)
        #expect(Imaging.sniff(path: directory.write([0xFF, 0xD8], to: "short.jpg")) == nil)
        #expect(Imaging.sniff(path: directory.file("missing.jpg")) == nil)
        #expect(Imaging.sniff(path: directory.path) == nil)  // a directory
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp])
    func inspectsEachFormat(format: ImageFormat) throws {
        let path = directory.image("photo.\(format.rawValue)", width: 400, height: 200, format: format)
        let info = try Imaging.inspect(path: path)
        #expect(info == ImageInfo(format: format, width: 400, height: 200, orientation: 1))
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp])
    func thumbnailsEachFormatToJPEG(format: ImageFormat) throws {
        let path = directory.image("photo.\(format.rawValue)", width: 400, height: 200, format: format)
        try Imaging.makeThumbnail(from: path, to: directory.file("thumb.jpg"))
        let thumbnail = try Imaging.inspect(path: directory.file("thumb.jpg"))
        #expect(thumbnail == ImageInfo(format: .jpeg, width: 320, height: 160, orientation: 1))
    }

    @Test func thumbnailFlattensAlphaAndHonoursSizeAndQuality() throws {
        let path = directory.image("alpha.png", width: 300, height: 600, format: .png, alpha: true)
        try Imaging.makeThumbnail(from: path, to: directory.file("small.jpg"), maxSide: 100, quality: 30)
        try Imaging.makeThumbnail(from: path, to: directory.file("large.jpg"), maxSide: 100, quality: 95)
        #expect(try Imaging.inspect(path: directory.file("small.jpg")).width == 50)
        #expect(try Imaging.inspect(path: directory.file("small.jpg")).height == 100)
        #expect(directory.read("small.jpg").count < directory.read("large.jpg").count)
    }

    @Test func smallImagesAreNotEnlarged() throws {
        let path = directory.image("tiny.jpg", width: 64, height: 48, format: .jpeg)
        try Imaging.makeThumbnail(from: path, to: directory.file("thumb.jpg"))
        #expect(
            try Imaging.inspect(path: directory.file("thumb.jpg"))
                == ImageInfo(format: .jpeg, width: 64, height: 48, orientation: 1))
    }

    @Test func orientationSixIsAppliedToSizeAndThumbnail() throws {
        directory.image("plain.jpg", width: 400, height: 200, format: .jpeg)
        let builder = TIFFBuilder(bigEndian: false)
        let tiff = builder.tiff(
            ifd0: [builder.short(0x0112, 6)],
            gps: [
                builder.ascii(1, "N"), builder.rationals(2, [(48, 1), (51, 1), (108, 10)]),
                builder.ascii(3, "E"), builder.rationals(4, [(2, 1), (21, 1), (36, 10)]),
            ])
        let path = directory.write(splice(exif: tiff, into: directory.read("plain.jpg")), to: "rotated.jpg")

        #expect(Imaging.orientation(path: path) == 6)
        #expect(try Imaging.inspect(path: path) == ImageInfo(format: .jpeg, width: 200, height: 400, orientation: 6))

        try Imaging.makeThumbnail(from: path, to: directory.file("thumb.jpg"))
        let thumbnail = try Imaging.inspect(path: directory.file("thumb.jpg"))
        #expect(thumbnail.height > thumbnail.width)
        #expect(thumbnail == ImageInfo(format: .jpeg, width: 160, height: 320, orientation: 1))
        // The upload's single decode rotates the same way and answers the same size.
        #expect(
            try Imaging.inspect(path: path, thumbnailTo: directory.file("kept.jpg"))
                == ImageInfo(format: .jpeg, width: 200, height: 400, orientation: 6))
        #expect(directory.read("kept.jpg") == directory.read("thumb.jpg"))
        // Metadata stripped: no orientation left to apply twice, no location.
        #expect(Imaging.gpsFix(path: path) != nil)
        #expect(Imaging.gpsFix(path: directory.file("thumb.jpg")) == nil)
        #expect(!containsExifSegment(directory.read("thumb.jpg")))
    }

    @Test func thumbnailReplacesTheDestinationAndLeavesNoTemporaryFile() throws {
        let path = directory.image("photo.jpg", width: 400, height: 200, format: .jpeg)
        directory.write(Array("old".utf8), to: "thumb.jpg")
        try Imaging.makeThumbnail(from: path, to: directory.file("thumb.jpg"))
        #expect(Imaging.sniff(path: directory.file("thumb.jpg")) == .jpeg)
        #expect(throws: ImageError.self) {
            try Imaging.makeThumbnail(from: path, to: directory.file("no-such-dir/thumb.jpg"))
        }
        #expect(directory.read("thumb.jpg").count > 100)
        let leftovers = listing(directory.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// The upload's single decode (`inspect(path:thumbnailTo:)`) gives `inspect`'s answer and, byte for
    /// byte, `makeThumbnail`'s thumbnail, at every shrink-on-load factor (so `jpegShrink` picks what
    /// libvips's own thumbnail picks) and for every format.
    @Test(arguments: [
        (ImageFormat.jpeg, 400, 200), (.jpeg, 64, 48), (.jpeg, 1400, 900), (.jpeg, 2600, 1300), (.jpeg, 5119, 300),
        (.jpeg, 300, 5120), (.jpeg, 5200, 3900), (.jpeg, 6000, 5), (.jpeg, 3, 6000), (.png, 1400, 900),
        (.webp, 1400, 900),
    ])
    func oneDecodeGivesInspectsAnswerAndTheSameThumbnail(format: ImageFormat, width: Int, height: Int) throws {
        let path = directory.image("photo.\(format.rawValue)", width: width, height: height, format: format)
        try Imaging.makeThumbnail(from: path, to: directory.file("expected.jpg"))
        let info = try Imaging.inspect(path: path, thumbnailTo: directory.file("thumb.jpg"))
        #expect(info == (try Imaging.inspect(path: path)))
        #expect(info == ImageInfo(format: format, width: width, height: height, orientation: 1))
        #expect(directory.read("thumb.jpg") == directory.read("expected.jpg"))
        #expect(listing(directory.path).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test func jpegShrinkLeavesAtLeastTwiceTheTarget() {
        let cases: [(Int, Int32)] = [
            (1, 1), (640, 1), (1279, 1), (1280, 2), (2559, 2), (2560, 4), (5119, 4), (5120, 8), (100_000, 8),
        ]
        for (longSide, factor) in cases {
            #expect(Imaging.jpegShrink(width: longSide, height: longSide / 2 + 1, side: 320) == factor, "\(longSide)")
            #expect(Imaging.jpegShrink(width: longSide / 2 + 1, height: longSide, side: 320) == factor, "\(longSide)")
        }
        // Never more than the short side: a sliver keeps at least one row.
        #expect(Imaging.jpegShrink(width: 6000, height: 5, side: 320) == 2)
        #expect(Imaging.jpegShrink(width: 1, height: 100_000, side: 320) == 1)
        #expect(Imaging.jpegShrink(width: 10, height: 10, side: 0) == 4)  // a side of 0 counts as 1
    }

    /// Thumbnails from many threads at once. libvips runs no liborc code: Debian 12's liborc frees a
    /// compiled program without its lock, libvips compiles and frees one for each resize, and two photo
    /// threads finishing at once crashed the test process in CI (see har_vips_init in CVips's shim.h).
    /// Each call here resizes to its own width, so each builds and frees a resize of its own.
    @Test func concurrentCallsFromManyThreads() throws {
        Imaging.initialize()
        Imaging.initialize()
        #expect(!Imaging.runsCompiledVectorCode)
        let sources = (0..<3).map { index in
            directory.image(
                "c\(index).\(["jpg", "png", "webp"][index])", width: 500, height: 300,
                format: [ImageFormat.jpeg, .png, .webp][index])
        }
        let calls = 48
        let outputs = (0..<calls).map { directory.file("t\($0).jpg") }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: calls) { index in
            let ok: Bool
            do {
                try Imaging.makeThumbnail(from: sources[index % 3], to: outputs[index], maxSide: 100 + index)
                ok = try Imaging.inspect(path: outputs[index]).width == 100 + index
            } catch {
                ok = false
            }
            outcomes.record(ok)
        }
        #expect(outcomes.successes == calls)
    }
}

/// True when the JPEG has an APP1 segment starting "Exif" before its scan.
func containsExifSegment(_ jpeg: [UInt8]) -> Bool {
    var position = 2
    while position + 4 <= jpeg.count, jpeg[position] == 0xFF, jpeg[position + 1] != 0xDA {
        let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
        if jpeg[position + 1] == 0xE1, jpeg[(position + 4)...].starts(with: Array("Exif".utf8)) { return true }
        position += 2 + length
    }
    return false
}

func listing(_ path: String) -> [String] {
    guard let handle = opendir(path) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        names.append(name)
    }
    return names
}

final class Outcomes: Sendable {
    private let count = Mutex(0)
    func record(_ ok: Bool) { count.withLock { if ok { $0 += 1 } } }
    var successes: Int { count.withLock { $0 } }
}
