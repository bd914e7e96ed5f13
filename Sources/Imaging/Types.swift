/// The three photo formats the app accepts, recognised by their magic bytes.
public enum ImageFormat: String, Sendable {
    case jpeg, png, webp
}

/// What `Imaging.inspect` learns about a photo that decoded completely.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// Displayed size: the stored size with width and height swapped for EXIF orientations 5 to 8.
    public var width: Int
    public var height: Int
    /// EXIF orientation tag, 1 to 8 (1 when absent or invalid).
    public var orientation: Int

    public init(format: ImageFormat, width: Int, height: Int, orientation: Int) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
    }
}

/// A location taken from a photo's EXIF GPS tags.
public struct GPSFix: Sendable, Equatable {
    /// Degrees, north positive.
    public var latitude: Double
    /// Degrees, east positive.
    public var longitude: Double
    /// Metres above sea level (negative below), when the photo records it.
    public var altitude: Double?
    /// ISO 8601 UTC ("2024-05-01T12:34:56Z") from GPSDateStamp + GPSTimeStamp, else DateTimeOriginal
    /// (camera local time, written as found with a Z, since EXIF 2.2 records no zone).
    public var capturedAt: String?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil, capturedAt: String? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.capturedAt = capturedAt
    }
}

public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a JPEG, PNG or WebP by its first bytes (empty, text, HTML, another format).
    case notAnImage
    /// Right magic bytes, but libvips would not load it with the matching loader.
    case unsupportedFormat
    /// More pixels than `Imaging.maximumPixels`, refused from the header before any decoding.
    case tooLarge(pixels: Int)
    /// The header or the pixel data is corrupt or truncated, or writing the output failed.
    case decodeFailed(String)

    public var description: String {
        switch self {
        case .notAnImage: "the file is not a JPEG, PNG or WebP image"
        case .unsupportedFormat: "the image format is not supported"
        case .tooLarge(let pixels): "the image is too large (\(pixels) pixels, at most \(Imaging.maximumPixels))"
        case .decodeFailed(let reason): "the image cannot be decoded: \(reason)"
        }
    }
}
