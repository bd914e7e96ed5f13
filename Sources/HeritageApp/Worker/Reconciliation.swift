import FoundationEssentials
import PlatformClient

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

    /// What became of a photo of ours left in `uploading` (the answer was lost, or a crash).
    enum PhotoOutcome: Sendable, Equatable {
        /// The platform has it: recorded stored with the platform's photo id (nil when the listing gives none).
        case landed(platformPhotoID: String?)
        /// The platform does not have it: send it again.
        case notLanded
    }

    /// The outcome of each photo left in `uploading`, or why the listing cannot tell (then nothing is
    /// sent and nothing adopted: a person looks at it).
    enum PhotoSettlement: Sendable, Equatable {
        case settled([Int64: PhotoOutcome])
        case undecidable(String)
    }

    /// Settles the photos of ours left in `uploading` against the report's photos as the platform
    /// lists them. `claimed` holds the platform photo ids already recorded for this report's photos;
    /// `storedCount` how many of its photos this side has marked stored.
    ///
    /// - When the listing gives SHA-256s (our local platform does; the contract does not promise
    ///   them), each photo is looked up by its SHA-256 among the listed photos not yet claimed: found,
    ///   it landed; not found, it did not.
    /// - Otherwise only the contract is used: the number of photos. The worker sends a report's photos
    ///   one at a time, in order, and never sends the next one before the last is settled (see
    ///   `ReportUploader.photoStep`), so the platform holds exactly the ones marked stored here, plus
    ///   the one in doubt if it landed: one more than `storedCount` means it landed (the newest
    ///   listed photo is it), as many means it did not. (For several in doubt, which the worker never
    ///   leaves, the same holds for all of them or none.) Any other count is not ours to guess.
    /// - A listing without the report's photos (`listed` nil: the contract lets any field but the id
    ///   and creation time be null or missing), or with entries that cannot be read (`unreadable`:
    ///   not objects), says nothing about them: counted as none, a photo that landed would be sent
    ///   again, so nothing is guessed.
    static func settlePhotos(
        uploading: [OutboxPhoto], listed: [PlatformPhoto]?, unreadable: Int = 0, claimed: Set<String>,
        storedCount: Int
    ) -> PhotoSettlement {
        let doubt = uploading.count == 1 ? "a photo" : "\(uploading.count) photos"
        guard let listed else {
            return .undecidable(
                "cannot tell whether \(doubt) reached the platform: its listing gives no photos for the report")
        }
        guard unreadable == 0 else {
            return .undecidable(
                "cannot tell whether \(doubt) reached the platform: \(unreadable) of the report's listed photos "
                    + "cannot be read")
        }
        if listed.contains(where: { $0.sha256 != nil }) {
            return .settled(matchBySHA256(uploading: uploading, listed: listed, claimed: claimed))
        }
        let inDoubt = uploading.sorted { ($0.position, $0.id) < ($1.position, $1.id) }
        let extra = listed.count - storedCount
        if extra == 0 {
            return .settled(Dictionary(uniqueKeysWithValues: inDoubt.map { ($0.id, PhotoOutcome.notLanded) }))
        }
        guard extra == inDoubt.count else {
            return .undecidable(
                "cannot tell whether \(doubt) reached the platform: it lists \(listed.count) photos for the report, "
                    + "\(storedCount) are recorded as sent here")
        }
        // The newest photos are the ones in doubt: those not claimed by a photo of ours when the listing
        // gives ids, else the last ones received (by creation time when every photo has one; the
        // platform lists them in the order received).
        let unclaimed = listed.filter { photo in photo.photoID.map { !claimed.contains($0) } ?? true }
        let newest: [PlatformPhoto]
        if unclaimed.count == extra {
            newest = unclaimed
        } else {
            var ordered = Array(listed.enumerated())
            if listed.allSatisfy({ $0.creationTime != nil }) {
                ordered.sort { left, right in
                    let l = left.element.creationTime ?? .distantPast
                    let r = right.element.creationTime ?? .distantPast
                    return l != r ? l < r : left.offset < right.offset
                }
            }
            newest = ordered.suffix(extra).map(\.element)
        }
        var outcomes: [Int64: PhotoOutcome] = [:]
        for (photo, platform) in zip(inDoubt, newest) {
            outcomes[photo.id] = .landed(platformPhotoID: platform.photoID)
        }
        return .settled(outcomes)
    }

    /// By SHA-256, among the listed photos not yet claimed by another photo of ours.
    private static func matchBySHA256(
        uploading: [OutboxPhoto], listed: [PlatformPhoto], claimed: Set<String>
    ) -> [Int64: PhotoOutcome] {
        var free = listed.filter { photo in photo.photoID.map { !claimed.contains($0) } ?? false }
        var outcomes: [Int64: PhotoOutcome] = [:]
        for photo in uploading {
            guard let index = free.firstIndex(where: { $0.sha256?.lowercased() == photo.sha256 }),
                let id = free[index].photoID
            else {
                outcomes[photo.id] = .notLanded
                continue
            }
            outcomes[photo.id] = .landed(platformPhotoID: id)
            free.remove(at: index)
        }
        return outcomes
    }
}

extension Reconciliation {
    /// The listed reports (among those no row claims) that may be the user's reports in flight, which
    /// the list's refresh must not copy: for each report with a create attempted and no platform id
    /// (`inFlight`, in the order of their attempts), the listed report reconciliation would adopt for
    /// it (same fields, created after the attempt less the clock slack, earliest first, one each).
    static func heldBack(among unclaimed: [PlatformReport], inFlight: [OutboxReport], clockSlack: Double)
        -> Set<String>
    {
        var held: Set<String> = []
        for report in inFlight {
            guard let attemptedAt = report.createAttemptedAt else { continue }
            switch report.newReport() {
            case .success(let body):
                if let match = match(
                    body, attemptedAt: attemptedAt, slack: clockSlack, in: unclaimed,
                    isClaimed: { held.contains($0) })
                {
                    held.insert(match.reportID)
                }
            case .failure:
                // A body the platform would refuse was never created there.
                continue
            }
        }
        return held
    }
}
