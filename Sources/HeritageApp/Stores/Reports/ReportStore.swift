import PlatformClient

/// The reports' aggregate as the list sees it (LST-01..09): the user's page of reports, the copy of
/// what the platform lists, and deleting. The worker's side of the same rows is `OutboxStore`.
protocol ReportStore: Sendable {
    /// The newest `limit` of the user's listed reports (all when nil), newest first, and how many
    /// there are in all, read in one snapshot so that the two agree.
    func page(userID: Int64, limit: Int?) throws -> ReportPage

    /// LST-05: keeps a local copy of what the platform lists (see `SQLReportStore.merge` for the
    /// rules), without taking a report the worker is still creating for a copy
    /// (`Reconciliation.heldBack`).
    func merge(
        _ listed: [PlatformReport], userID: Int64, now: Double, listingStartedAt: Double, clockSlack: Double
    ) throws

    /// Decides how to delete, and does the local part at once in the same transaction (cancelled, or
    /// deleting for the worker), so that the worker never picks up a report being cancelled. Returns
    /// the plan and the photo ids whose files are to go.
    func planDeletion(localID: String, userID: Int64, now: Double) throws -> (plan: DeletionPlan, photos: [String])

    /// LST-09: the platform deleted it: deleted here too. Returns the photo ids whose files are to go.
    func markDeleted(localID: String, userID: Int64, now: Double) throws -> [String]

    /// A number that changes, in the same transaction, with every change to what the
    /// user's list shows (rows added, removed, their state, names, errors, photo progress), whoever
    /// makes it, the upload worker included; 0 for a user who never had a listed report. Equal
    /// versions mean an equal list: the list's ETag is made from it.
    func listVersion(userID: Int64) throws -> Int64
}

extension ReportStore {
    /// All of the user's listed reports, newest first.
    func reports(userID: Int64) throws -> [ListedReport] {
        try page(userID: userID, limit: nil).rows
    }

    func merge(_ listed: [PlatformReport], userID: Int64, now: Double, listingStartedAt: Double) throws {
        try merge(
            listed, userID: userID, now: now, listingStartedAt: listingStartedAt,
            clockSlack: WorkerSettings().clockSlackSeconds)
    }
}

/// A page of the list: its rows and how many listed reports the user has in all.
struct ReportPage: Sendable, Equatable {
    var rows: [ListedReport]
    var total: Int
}

/// A row of the report list as the store has it.
struct ListedReport: Sendable, Hashable {
    var localID: String
    var platformReportID: String?
    var state: ReportState
    var name: String?
    var formattedAddress: String?
    var creationTime: Double
    var lastError: String?
    /// The report's photos, and how many the platform has: read for an `uploading` report only (0 otherwise).
    var photoCount: Int
    var photosStored: Int
}

/// What deleting a report needs from the platform, decided from its state (LST-06, LST-07).
enum DeletionPlan: Sendable, Equatable {
    /// Stored on the platform: DELETE har/report/{id} first, then mark it deleted here (LST-06).
    case deleteOnPlatform(reportID: String)
    /// Never reached the platform: cancelled here, no platform call, photo files removed (LST-07).
    case cancelledLocally
    /// Part-way through the transfer: marked `deleting`; the upload worker stops it and deletes what
    /// already exists on the platform (LST-07).
    case handedToWorker
    /// Not this user's, or no longer listed.
    case notFound
}
