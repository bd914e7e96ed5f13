/// The code lists of a report, shared by the client (what it sends) and the local platform (what it
/// accepts). Raw values are the contract's strings.

public enum Designation: String, Codable, Sendable, CaseIterable {
    case listedBuilding = "LB"
    case listedPlaceOfWorship = "LPW"
    case scheduledMonument = "SM"
    case registeredParkOrGarden = "RGP"
    case registeredBattlefield = "RB"
    case protectedWreckSite = "PWS"
    case conservationArea = "CA"
}

public enum Condition: String, Codable, Sendable, CaseIterable {
    case bad, poor, fair, good
}

public enum Occupancy: String, Codable, Sendable, CaseIterable {
    case vacant, occupied
    case partOccupied = "part_occupied"
    case unknown
    case notApplicable = "not_applicable"
}

public enum PriorityCategory: String, Codable, Sendable, CaseIterable {
    case a = "A"
    case b = "B"
    case c = "C"
    case d = "D"
    case e = "E"
    case f = "F"
}

public enum OwnerType: String, Codable, Sendable, CaseIterable {
    case localAuthority = "local_authority"
    case multipleOwners = "multiple_owners"
    case religiousOrganization = "religious_organization"
    case `private`
}

public enum Grade: String, Codable, Sendable, CaseIterable {
    case one = "I"
    case twoStar = "II*"
    case two = "II"
}
