import FoundationEssentials

/// A signed-in user's session on the platform (`POST account/session`). Only `session_id` is required
/// to be usable; the rest is kept as the platform sent it.
public struct PlatformSession: Sendable, Equatable, Codable {
    public var sessionID: String
    public var accountID: String?
    public var accountType: String?
    public var appID: String?
    public var creationTime: Date?
    public var expirationTime: Date?
    public var fullname: String?
    public var isPrimary: Bool?
    public var isVerified: Bool?
    public var locale: String?
    public var pictureID: String?
    public var pictureURL: String?
    public var objectStatus: String?
    public var updateTime: Date?

    public init(
        sessionID: String, accountID: String? = nil, accountType: String? = nil, appID: String? = nil,
        creationTime: Date? = nil, expirationTime: Date? = nil, fullname: String? = nil, isPrimary: Bool? = nil,
        isVerified: Bool? = nil, locale: String? = nil, pictureID: String? = nil, pictureURL: String? = nil,
        objectStatus: String? = nil, updateTime: Date? = nil
    ) {
        self.sessionID = sessionID
        self.accountID = accountID
        self.accountType = accountType
        self.appID = appID
        self.creationTime = creationTime
        self.expirationTime = expirationTime
        self.fullname = fullname
        self.isPrimary = isPrimary
        self.isVerified = isVerified
        self.locale = locale
        self.pictureID = pictureID
        self.pictureURL = pictureURL
        self.objectStatus = objectStatus
        self.updateTime = updateTime
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case accountID = "account_id"
        case accountType = "account_type"
        case appID = "app_id"
        case creationTime = "creation_time"
        case expirationTime = "expiration_time"
        case fullname
        case isPrimary = "is_primary"
        case isVerified = "is_verified"
        case locale
        case pictureID = "picture_id"
        case pictureURL = "picture_url"
        case objectStatus = "object_status"
        case updateTime = "update_time"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sessionID = try c.requiredString(.sessionID)
        accountID = c.lenientString(.accountID)
        accountType = c.lenientString(.accountType)
        appID = c.lenientString(.appID)
        creationTime = c.lenientDate(.creationTime)
        expirationTime = c.lenientDate(.expirationTime)
        fullname = c.lenient(String.self, .fullname)
        isPrimary = c.lenient(Bool.self, .isPrimary)
        isVerified = c.lenient(Bool.self, .isVerified)
        locale = c.lenient(String.self, .locale)
        pictureID = c.lenientString(.pictureID)
        pictureURL = c.lenient(String.self, .pictureURL)
        objectStatus = c.lenientString(.objectStatus)
        updateTime = c.lenientDate(.updateTime)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sessionID, forKey: .sessionID)
        try c.encode(accountID, forKey: .accountID)
        try c.encode(accountType, forKey: .accountType)
        try c.encode(appID, forKey: .appID)
        try c.encodeDate(creationTime, forKey: .creationTime)
        try c.encodeDate(expirationTime, forKey: .expirationTime)
        try c.encode(fullname, forKey: .fullname)
        try c.encode(isPrimary, forKey: .isPrimary)
        try c.encode(isVerified, forKey: .isVerified)
        try c.encode(locale, forKey: .locale)
        try c.encode(pictureID, forKey: .pictureID)
        try c.encode(pictureURL, forKey: .pictureURL)
        try c.encode(objectStatus, forKey: .objectStatus)
        try c.encodeDate(updateTime, forKey: .updateTime)
    }
}
