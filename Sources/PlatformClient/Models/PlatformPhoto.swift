import FoundationEssentials

/// A photo of a listed report. The contract gives no schema for it, so every field is optional; the
/// local platform fills them all.
public struct PlatformPhoto: Sendable, Equatable, Codable {
    public var photoID: String?
    public var creationTime: Date?
    public var latitude: Double?
    public var longitude: Double?
    public var accuracy: Double?
    public var altitude: Double?
    public var capturedAt: String?
    public var size: Int?
    public var sha256: String?

    public init(
        photoID: String? = nil, creationTime: Date? = nil, latitude: Double? = nil, longitude: Double? = nil,
        accuracy: Double? = nil, altitude: Double? = nil, capturedAt: String? = nil, size: Int? = nil,
        sha256: String? = nil
    ) {
        self.photoID = photoID
        self.creationTime = creationTime
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
        self.capturedAt = capturedAt
        self.size = size
        self.sha256 = sha256
    }

    enum CodingKeys: String, CodingKey {
        case photoID = "photo_id"
        case creationTime = "creation_time"
        case latitude, longitude, accuracy, altitude
        case capturedAt = "captured_at"
        case size, sha256
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        photoID = c.lenientString(.photoID)
        creationTime = c.lenientDate(.creationTime)
        latitude = c.lenientDouble(.latitude)
        longitude = c.lenientDouble(.longitude)
        accuracy = c.lenientDouble(.accuracy)
        altitude = c.lenientDouble(.altitude)
        capturedAt = c.lenient(String.self, .capturedAt)
        size = c.lenient(Int.self, .size)
        sha256 = c.lenient(String.self, .sha256)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(photoID, forKey: .photoID)
        try c.encodeDate(creationTime, forKey: .creationTime)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(accuracy, forKey: .accuracy)
        try c.encode(altitude, forKey: .altitude)
        try c.encode(capturedAt, forKey: .capturedAt)
        try c.encode(size, forKey: .size)
        try c.encode(sha256, forKey: .sha256)
    }
}
