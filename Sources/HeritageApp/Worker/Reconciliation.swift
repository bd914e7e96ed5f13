import FoundationEssentials
import Platform

/// After an ambiguous create (the platform may have made the report although we saw no answer), the
/// worker lists the user's reports and adopts the one it made, before it creates again: the real
/// platform may ignore Idempotency-Key. Pure functions of the listing, so they are tested directly.
enum Reconciliation {
    /// The platform report that is this create's: same fields, created no earlier than the first
    /// attempt (less the clock slack), and not already another local report's. The earliest wins.
    static func match(
        _ report: NewReport, attemptedAt: Double, slack: Double, in listed: [PlatformReport],
        isClaimed: (String) -> Bool
    ) -> PlatformReport? {
        listed
            .filter { $0.creationTime.timeIntervalSince1970 >= attemptedAt - slack }
            .filter { sameFields(report, $0) }
            .sorted { $0.creationTime < $1.creationTime }
            .first { !isClaimed($0.reportID) }
    }

    /// Every field the platform lists must equal what we sent; a missing one does not contradict (the
    /// contract lets any field but the id and time be null), but the place name must be there.
    static func sameFields(_ sent: NewReport, _ listed: PlatformReport) -> Bool {
        guard listed.name == sent.placeName else { return false }
        let pairs: [(String?, String)] = [
            (listed.condition, sent.condition.rawValue), (listed.designation, sent.designation.rawValue),
            (listed.grade, sent.grade.rawValue), (listed.occupancy, sent.occupancy.rawValue),
            (listed.ownerType, sent.ownerType.rawValue), (listed.priorityCategory, sent.priorityCategory.rawValue),
        ]
        for (listedValue, sentValue) in pairs where listedValue != nil && listedValue != sentValue { return false }
        switch (sent.location, listed.location) {
        case (let sent?, let listed?):
            // Coordinates come back through JSON and a REAL column: equal to well under a millimetre.
            return abs(sent.latitude - listed.latitude) < 1e-7 && abs(sent.longitude - listed.longitude) < 1e-7
        case (nil, _?): return false
        default: return true
        }
    }

    /// Photos of ours left in `uploading` (the answer was lost): the platform photo of each, found by
    /// its SHA-256 among the report's listed photos not yet claimed by another photo of ours. A photo
    /// with no match was not stored and is sent again; nil when the listing gives no SHA-256 at all
    /// (then there is no telling, and the upload is repeated with its Idempotency-Key).
    static func photoMatches(
        uploading: [OutboxPhoto], listed: [PlatformPhoto], claimed: Set<String>
    ) -> [Int64: String]? {
        guard listed.isEmpty || listed.contains(where: { $0.sha256 != nil }) else { return nil }
        var free = listed.filter { photo in photo.photoID.map { !claimed.contains($0) } ?? false }
        var matches: [Int64: String] = [:]
        for photo in uploading {
            guard let index = free.firstIndex(where: { $0.sha256?.lowercased() == photo.sha256 }),
                let id = free[index].photoID
            else { continue }
            matches[photo.id] = id
            free.remove(at: index)
        }
        return matches
    }
}
