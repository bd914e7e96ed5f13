import FoundationEssentials

/// A report as `GET har/report` lists it. Lenient: only `report_id` and `creation_time` are required,
/// every other field may be null, missing, or of a type the client does not expect (then dropped).
/// Code fields stay strings: the platform may know codes this client does not.
public struct PlatformReport: Sendable, Equatable, Codable {
    public var reportID: String
    public var creationTime: Date
    public var name: String?
    public var formattedAddress: String?
    public var updateTime: Date?
    public var condition: String?
    public var designation: String?
    public var grade: String?
    public var occupancy: String?
    public var ownerType: String?
    public var priorityCategory: String?
    public var placeID: String?
    public var isAddressEdited: Bool?
    public var isAnonymous: Bool?
    public var isLocationEdited: Bool?
    public var location: Location?
    public var photos: [PlatformPhoto]?
    /// Entries of the listing's `photos` that are not photo objects (a string, a number): left out of
    /// `photos`, counted here, so that a reader counting photos knows the count is short.
    public var unreadablePhotoCount = 0

    public init(reportID: String, creationTime: Date) {
        self.reportID = reportID
        self.creationTime = creationTime
    }

    enum CodingKeys: String, CodingKey {
        case reportID = "report_id"
        case creationTime = "creation_time"
        case name
        case formattedAddress = "formatted_address"
        case updateTime = "update_time"
        case condition, designation, grade, occupancy
        case ownerType = "owner_type"
        case priorityCategory = "priority_category"
        case placeID = "place_id"
        case isAddressEdited = "is_address_edited"
        case isAnonymous = "is_anonymous"
        case isLocationEdited = "is_location_edited"
        case location, photos
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reportID = try c.requiredString(.reportID)
        creationTime = try c.requiredDate(.creationTime)
        name = c.lenient(String.self, .name)
        formattedAddress = c.lenient(String.self, .formattedAddress)
        updateTime = c.lenientDate(.updateTime)
        condition = c.lenient(String.self, .condition)
        designation = c.lenient(String.self, .designation)
        grade = c.lenient(String.self, .grade)
        occupancy = c.lenient(String.self, .occupancy)
        ownerType = c.lenient(String.self, .ownerType)
        priorityCategory = c.lenient(String.self, .priorityCategory)
        placeID = c.lenientString(.placeID)
        isAddressEdited = c.lenient(Bool.self, .isAddressEdited)
        isAnonymous = c.lenient(Bool.self, .isAnonymous)
        isLocationEdited = c.lenient(Bool.self, .isLocationEdited)
        location = c.lenient(Location.self, .location)
        // One malformed photo entry must not hide the others.
        let entries = c.lenient([LenientElement<PlatformPhoto>].self, .photos)
        photos = entries?.compactMap(\.value)
        unreadablePhotoCount = (entries?.count ?? 0) - (photos?.count ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reportID, forKey: .reportID)
        try c.encodeDate(creationTime, forKey: .creationTime)
        try c.encode(name, forKey: .name)
        try c.encode(formattedAddress, forKey: .formattedAddress)
        try c.encodeDate(updateTime, forKey: .updateTime)
        try c.encode(condition, forKey: .condition)
        try c.encode(designation, forKey: .designation)
        try c.encode(grade, forKey: .grade)
        try c.encode(occupancy, forKey: .occupancy)
        try c.encode(ownerType, forKey: .ownerType)
        try c.encode(priorityCategory, forKey: .priorityCategory)
        try c.encode(placeID, forKey: .placeID)
        try c.encode(isAddressEdited, forKey: .isAddressEdited)
        try c.encode(isAnonymous, forKey: .isAnonymous)
        try c.encode(isLocationEdited, forKey: .isLocationEdited)
        try c.encode(location, forKey: .location)
        try c.encode(photos, forKey: .photos)
    }
}

/// An array element that decodes to nil instead of failing the array.
struct LenientElement<T: Decodable>: Decodable {
    var value: T?
    init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
}
