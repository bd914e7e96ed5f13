import FoundationEssentials

/// The body of `POST har/report`.
public struct NewReport: Sendable, Equatable, Codable {
    public var condition: Condition
    public var designation: Designation
    public var grade: Grade
    public var occupancy: Occupancy
    public var ownerType: OwnerType
    public var placeName: String
    public var priorityCategory: PriorityCategory
    public var location: Location?
    public var isAnonymous: Bool?

    public init(
        condition: Condition, designation: Designation, grade: Grade, occupancy: Occupancy, ownerType: OwnerType,
        placeName: String, priorityCategory: PriorityCategory, location: Location? = nil, isAnonymous: Bool? = nil
    ) {
        self.condition = condition
        self.designation = designation
        self.grade = grade
        self.occupancy = occupancy
        self.ownerType = ownerType
        self.placeName = placeName
        self.priorityCategory = priorityCategory
        self.location = location
        self.isAnonymous = isAnonymous
    }

    enum CodingKeys: String, CodingKey {
        case condition, designation, grade, occupancy
        case ownerType = "owner_type"
        case placeName = "place_name"
        case priorityCategory = "priority_category"
        case location
        case isAnonymous = "is_anonymous"
    }

    /// The exact bytes sent and signed. Sorted keys make them the same on every retry of the same report,
    /// which the local platform's idempotency check relies on.
    public func jsonBytes() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }
}

/// The answer to `POST har/report`.
public struct CreatedReport: Sendable, Equatable, Codable {
    public var reportID: String
    public var objectStatus: String?
    public var creationTime: Date

    public init(reportID: String, objectStatus: String?, creationTime: Date) {
        self.reportID = reportID
        self.objectStatus = objectStatus
        self.creationTime = creationTime
    }

    enum CodingKeys: String, CodingKey {
        case reportID = "report_id"
        case objectStatus = "object_status"
        case creationTime = "creation_time"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reportID = try c.requiredString(.reportID)
        objectStatus = c.lenientString(.objectStatus)
        creationTime = try c.requiredDate(.creationTime)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reportID, forKey: .reportID)
        try c.encode(objectStatus, forKey: .objectStatus)
        try c.encodeDate(creationTime, forKey: .creationTime)
    }
}
