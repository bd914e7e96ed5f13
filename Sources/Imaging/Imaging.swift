// Imaging: photos uploaded to a report: checked, measured, thumbnailed, and their EXIF GPS read.
//
// Why libvips: one library decodes JPEG, PNG and WebP, validates a file by decoding it, makes
// shrink-on-load thumbnails with EXIF auto-rotation, and streams (sequential access) in small memory.
// libjpeg-turbo alone would need libpng and libwebp beside it, and our own resize and rotation.
// EXIF (orientation, GPS) is read by our own small parser (TIFF.swift, Exif.swift): no pixels needed,
// and every offset of that hostile input is checked in Swift.
import CVips
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libvips started once per process (Swift runs a global's initializer exactly once, thread-safely).
private let vipsStarted: Bool = har_vips_init() == 0

/// Suffix counter for the temporary file a thumbnail is written to before its rename.
private let temporaryCounter = Atomic<Int>(0)
/// This process's part of those suffixes, drawn at random: nodes sharing one photo folder may have the
/// same process id (each in its own container, often 1), and two of them writing the same photo's
/// thumbnail (a retry sent to another node) must not write one temporary file.
private let temporaryPrefix = String(UInt64.random(in: 0...UInt64.max), radix: 36)

public enum Imaging {
    /// Photos of more pixels than this (50 megapixels) are refused from their header, before decoding:
    /// a small file can declare a huge image (decompression bomb).
    public static let maximumPixels = 50_000_000

    /// Starts libvips: no operation cache, one thread per pipeline, untrusted loaders blocked, no liborc.
    /// Idempotent and thread-safe; every other call does it when needed.
    public static func initialize() {
        _ = vipsStarted
    }

    /// Whether libvips could be opened and started (`har doctor`: it is loaded at first use, so a
    /// missing libvips42 shows only at the first photo otherwise).
    public static var isAvailable: Bool { vipsStarted }

    /// Whether libvips runs liborc's run-time compiled vector code: never once started (har_vips_init
    /// turns it off; Debian 12's liborc is not safe to free from two threads at once).
    public static var runsCompiledVectorCode: Bool { vipsStarted && har_vips_vector_enabled() != 0 }

    /// The format by magic bytes only: FF D8 FF (JPEG), the 8-byte PNG signature, RIFF....WEBP.
    public static func sniff(path: String) -> ImageFormat? {
        guard let reader = FileReader(path: path) else { return nil }
        return Containers.format(of: reader)
    }

    /// Checks that the file is a complete, decodable JPEG, PNG or WebP of at most `maximumPixels`, and
    /// returns its displayed size (after EXIF orientation). Every pixel is decoded, streaming.
    public static func inspect(path: String) throws(ImageError) -> ImageInfo {
        let (format, image) = try header(path: path)
        let width = Int(har_vips_width(image))
        let height = Int(har_vips_height(image))
        try decodeAndClose(image)
        return displayed(format, width: width, height: height, path: path)
    }

    /// Writes a JPEG thumbnail fitting `maxSide` x `maxSide` (never enlarged), upright by the EXIF
    /// orientation, with no metadata (GPS included). Shrink-on-load where the format allows. The output
    /// appears complete or not at all (written beside it, then renamed).
    public static func makeThumbnail(
        from source: String, to destination: String, maxSide: Int = 320, quality: Int = 80
    ) throws(ImageError) {
        let (format, opened) = try header(path: source)
        har_vips_unref(opened)
        try thumbnail(of: source, format: format, to: destination, maxSide: maxSide, quality: quality)
    }

    /// `inspect` and `makeThumbnail` at once, for an upload: the same checks, the same answer, the same
    /// thumbnail at `destination` (complete or not at all), in one decode where the format allows.
    ///
    /// A JPEG is decoded once, at the scale its thumbnail is made from (`jpegShrink`: 1/8 for a
    /// 20-megapixel photo, 1/4 for a 12-megapixel one): libjpeg scales in its inverse DCT, so every
    /// block's entropy-coded data is still read and every libjpeg warning still raised, at a fraction of
    /// a full decode's cost (docs/BENCHMARKS.md). The scaled pixels are kept in memory (at most about
    /// 1.6 megapixels by `jpegShrink`'s rule) so that every row is decoded even where the thumbnail's
    /// resampling would not pull the last ones, and a warning libvips only reports when the loader
    /// closes is caught too (`watchingLateWarnings`). A PNG or WebP is decoded in full, then thumbnailed.
    public static func inspect(
        path: String, thumbnailTo destination: String, maxSide: Int = 320, quality: Int = 80
    ) throws(ImageError) -> ImageInfo {
        let (format, opened) = try header(path: path)
        let width = Int(har_vips_width(opened))
        let height = Int(har_vips_height(opened))
        guard format == .jpeg else {
            try decodeAndClose(opened)
            try thumbnail(of: path, format: format, to: destination, maxSide: maxSide, quality: quality)
            return displayed(format, width: width, height: height, path: path)
        }
        har_vips_unref(opened)
        let side = thumbnailSide(maxSide)
        let shrink = jpegShrink(width: width, height: height, side: Int(side))
        var pixels: OpaquePointer?
        defer { if let pixels { har_vips_unref(pixels) } }
        try watchingLateWarnings { () throws(ImageError) in
            var scaled: OpaquePointer?
            guard har_vips_jpeg_open_shrunk(path, &scaled, shrink, strictness(format)) == 0, let scaled else {
                throw decodeFailure()
            }
            pixels = har_vips_copy_memory(scaled)
            har_vips_unref(scaled)  // the loader closes: a warning from its last strip is reported now
            guard pixels != nil else { throw decodeFailure() }
        }
        guard let decoded = pixels else { throw .decodeFailed("no pixels") }
        var thumbnail: OpaquePointer?
        guard har_vips_thumbnail_image(decoded, &thumbnail, side, side) == 0, let thumbnail else {
            throw decodeFailure()
        }
        defer { har_vips_unref(thumbnail) }
        try save(thumbnail, to: destination, quality: quality)
        return displayed(format, width: width, height: height, path: path)
    }

    /// The shrink-on-load factor libvips's own thumbnail picks for a JPEG of `width` x `height` fitting
    /// `side` x `side` (`vips_thumbnail_find_jpegshrink`, 8.14): the largest of 8, 4, 2, 1 that leaves
    /// at least twice the target, the resampler doing the rest, and never more than the short side (no
    /// axis shrunk to nothing). `ImagingTests` checks that both ways give the same bytes.
    static func jpegShrink(width: Int, height: Int, side: Int) -> Int32 {
        let ratio = min(Double(max(width, height)) / Double(max(side, 1)), Double(min(width, height)))
        return ratio >= 16 ? 8 : ratio >= 8 ? 4 : ratio >= 4 ? 2 : 1
    }

    /// The EXIF GPS position of a JPEG (APP1), PNG (eXIf) or WebP (EXIF chunk), if it has a valid one.
    public static func gpsFix(path: String) -> GPSFix? {
        metadata(path: path)?.gps
    }

    /// The EXIF orientation tag (0x0112), 1 to 8; 1 when absent, invalid or unreadable.
    public static func orientation(path: String) -> Int {
        metadata(path: path)?.orientation ?? 1
    }

    // MARK: - Internals

    /// `makeThumbnail` for a file whose header `header(path:)` has already checked.
    private static func thumbnail(
        of source: String, format: ImageFormat, to destination: String, maxSide: Int, quality: Int
    ) throws(ImageError) {
        let side = thumbnailSide(maxSide)
        var thumbnail: OpaquePointer?
        guard har_vips_thumbnail(source, &thumbnail, side, side, strictness(format)) == 0, let thumbnail else {
            throw decodeFailure()
        }
        defer { har_vips_unref(thumbnail) }
        try save(thumbnail, to: destination, quality: quality)
    }

    /// Pulls every pixel of an opened image, then closes it: the first failure, a libjpeg warning that
    /// libvips reports only at the close included.
    private static func decodeAndClose(_ image: OpaquePointer) throws(ImageError) {
        try watchingLateWarnings { () throws(ImageError) in
            let decoded = har_vips_decode_all(image) == 0
            har_vips_unref(image)
            guard decoded else { throw decodeFailure() }
        }
    }

    /// Runs `decode`, which must drop its last reference to the loader's image, with this thread
    /// watching for a libjpeg warning raised while libvips decoded a JPEG's last strip: libvips fails
    /// nothing for it, only reports it when the loader closes (shim.h). `decode`'s own failure first;
    /// else that warning, when there was one, is the failure.
    private static func watchingLateWarnings(_ decode: () throws(ImageError) -> Void) throws(ImageError) {
        har_vips_jpeg_watch()
        var failure: ImageError?
        do {
            try decode()
        } catch {
            failure = error
        }
        var warning = [CChar](repeating: 0, count: 256)
        let warned = har_vips_jpeg_watch_end(&warning, warning.count) != 0
        if let failure { throw failure }
        guard warned else { return }
        let text = String(decoding: warning.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw .decodeFailed(text.isEmpty ? "VipsJpeg: damaged data" : text)
    }

    /// The size as shown: width and height swapped by an EXIF orientation of 5 to 8.
    private static func displayed(_ format: ImageFormat, width: Int, height: Int, path: String) -> ImageInfo {
        let orientation = orientation(path: path)
        let swapped = orientation >= 5
        return ImageInfo(
            format: format, width: swapped ? height : width, height: swapped ? width : height,
            orientation: orientation)
    }

    private static func thumbnailSide(_ maxSide: Int) -> Int32 {
        Int32(clamping: min(max(maxSide, 1), 10_000))
    }

    /// The thumbnail as a JPEG at `destination`: written beside it, then renamed.
    private static func save(_ thumbnail: OpaquePointer, to destination: String, quality: Int) throws(ImageError) {
        let number = temporaryCounter.add(1, ordering: .relaxed).newValue
        let temporary = "\(destination).tmp-\(temporaryPrefix)-\(number)"
        guard har_vips_jpegsave(thumbnail, temporary, Int32(min(max(quality, 1), 100))) == 0 else {
            let failure = decodeFailure()
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .decodeFailed("cannot write \(destination): \(reason)")
        }
    }

    private static func metadata(path: String) -> ExifMetadata? {
        guard let reader = FileReader(path: path), let tiff = Containers.exif(of: reader) else { return nil }
        return ExifMetadata(tiff: tiff)
    }

    /// Magic bytes, loader, header: the checks made before any pixel is decoded. The image is returned
    /// opened (sequential, not yet decoded); the caller unrefs it.
    private static func header(path: String) throws(ImageError) -> (ImageFormat, OpaquePointer) {
        guard vipsStarted else { throw .decodeFailed("libvips failed to start") }
        guard let reader = FileReader(path: path) else { throw .decodeFailed("cannot read the file") }
        guard let format = Containers.format(of: reader) else { throw .notAnImage }
        var name = [CChar](repeating: 0, count: 64)
        guard har_vips_loader(path, &name, name.count) == 0 else { throw decodeFailure() }
        let loader = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let expected =
            switch format {
            case .jpeg: "VipsForeignLoadJpegSource"
            case .png: "VipsForeignLoadPngSource"
            case .webp: "VipsForeignLoadWebpSource"
            }
        guard loader == expected else { throw .unsupportedFormat }
        let image = try open(path: path, format: format)
        let width = Int(har_vips_width(image))
        let height = Int(har_vips_height(image))
        guard width > 0, height > 0, width * height <= maximumPixels else {
            har_vips_unref(image)
            throw width > 0 && height > 0 ? .tooLarge(pixels: width * height) : .decodeFailed("empty image")
        }
        return (format, image)
    }

    /// The image opened lazily: header read, pixels decoded only when pulled.
    private static func open(path: String, format: ImageFormat) throws(ImageError) -> OpaquePointer {
        var image: OpaquePointer?
        guard har_vips_open(path, &image, strictness(format)) == 0, let image else { throw decodeFailure() }
        return image
    }

    /// How strict decoding is. Every libjpeg warning means damaged data ("Corrupt JPEG data: premature
    /// end of data segment", "extraneous bytes before marker"...): a JPEG fails on warnings. libpng warns
    /// about harmless things many real PNGs have (an sRGB profile it knows to be wrong): PNG and WebP fail
    /// on errors and truncation only.
    private static func strictness(_ format: ImageFormat) -> Int32 {
        Int32(format == .jpeg ? HAR_VIPS_FAIL_ON_WARNING : HAR_VIPS_FAIL_ON_ERROR)
    }

    /// The libvips error text (its buffer is process-wide: under concurrency it may hold another call's text).
    private static func decodeFailure() -> ImageError {
        var buffer = [CChar](repeating: 0, count: 512)
        har_vips_take_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let line = text.split(separator: "\n").first.map(String.init) ?? "unknown libvips error"
        return .decodeFailed(line)
    }
}
