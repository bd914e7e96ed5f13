import PlatformClient

/// The list's store and the photo files of the reports it deletes: files go after the store's commit,
/// so a crash in between leaves files of a cancelled report, never a live report without its files.
struct ReportList: Sendable {
    let store: any ReportStore
    let files: PhotoFiles

    func page(userID: Int64, limit: Int?) throws -> ReportPage {
        try store.page(userID: userID, limit: limit)
    }

    /// The user's list version: read before the rows it stands for.
    func version(userID: Int64) throws -> Int64 {
        try store.listVersion(userID: userID)
    }

    func merge(_ listed: [PlatformReport], userID: Int64, now: Double, listingStartedAt: Double) throws {
        try store.merge(listed, userID: userID, now: now, listingStartedAt: listingStartedAt)
    }

    /// How to delete the report (LST-06, LST-07); the local part is done, files included.
    func planDeletion(localID: String, userID: Int64, now: Double) throws -> DeletionPlan {
        let (plan, photos) = try store.planDeletion(localID: localID, userID: userID, now: now)
        for photo in photos { files.remove(photo) }
        return plan
    }

    /// LST-09: the platform deleted it (200): gone here too, with its files.
    func markDeleted(localID: String, userID: Int64, now: Double) throws {
        for photo in try store.markDeleted(localID: localID, userID: userID, now: now) { files.remove(photo) }
    }
}
