import FoundationEssentials

/// A photo to upload: a file on disk (streamed, never loaded whole) and where and when it was taken.
public struct PhotoUpload: Sendable, Equatable {
    public var filePath: String
    /// `image/jpeg`, `image/png` or `image/webp`.
    public var contentType: String
    public var latitude: Double?
    public var longitude: Double?
    public var accuracy: Double?
    public var altitude: Double?
    /// ISO 8601, sent as the platform's `captured_at` text part.
    public var capturedAt: Date?

    public init(
        filePath: String, contentType: String, latitude: Double? = nil, longitude: Double? = nil,
        accuracy: Double? = nil, altitude: Double? = nil, capturedAt: Date? = nil
    ) {
        self.filePath = filePath
        self.contentType = contentType
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
        self.capturedAt = capturedAt
    }
}

/// The answer to `POST har/report/{id}/photo`.
public struct UploadedPhoto: Sendable, Equatable, Codable {
    public var photoID: String
    public var reportID: String?
    public var creationTime: Date?

    public init(photoID: String, reportID: String?, creationTime: Date?) {
        self.photoID = photoID
        self.reportID = reportID
        self.creationTime = creationTime
    }

    enum CodingKeys: String, CodingKey {
        case photoID = "photo_id"
        case reportID = "report_id"
        case creationTime = "creation_time"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        photoID = try c.requiredString(.photoID)
        reportID = c.lenientString(.reportID)
        creationTime = c.lenientDate(.creationTime)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(photoID, forKey: .photoID)
        try c.encode(reportID, forKey: .reportID)
        try c.encodeDate(creationTime, forKey: .creationTime)
    }
}
