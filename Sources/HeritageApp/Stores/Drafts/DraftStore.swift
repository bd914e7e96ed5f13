/// Drafts (reports in state 'draft') and their photos, the expired drafts' tombstones, and the
/// submission that turns a draft into a queued report.
protocol DraftStore: Sendable {
    /// The user's open draft (the newest one touched since `freshSince`, touched now), or a new one.
    /// The bool says whether it was made now.
    func openDraft(userID: Int64, now: Double, freshSince cutoff: Double) throws -> (Draft, Bool)
    /// The user's draft of that id while it is a draft; nil otherwise (another user's reads as none).
    func draft(localID: String, userID: Int64) throws -> Draft?
    func photos(reportID: Int64) throws -> [DraftPhoto]
    /// A photo of this draft by its id; `ownedElsewhere` when the id belongs to another report's photo.
    func photo(localID: String, draft: Draft) throws -> (photo: DraftPhoto?, ownedElsewhere: Bool)
    func photoCount(reportID: Int64) throws -> Int
    /// Adds the photo after the others unless the draft has `Draft.maximumPhotos` already (decided in
    /// the same transaction) or is no longer a draft. A photo id already taken throws a conflict.
    func addPhoto(_ photo: NewPhoto, to draft: Draft, now: Double) throws -> PhotoAddResult
    /// Removes the photo while the report is still a draft; true when a row went.
    func deletePhoto(localID: String, draft: Draft, now: Double) throws -> Bool
    /// The stored content type of a photo of any of this user's reports, or nil.
    func ownedPhotoType(localID: String, userID: Int64) throws -> String?
    /// Deletes the user's drafts (Cancel); returns the photo ids whose files are to go.
    func cancelDrafts(userID: Int64) throws -> [String]
    /// Deletes drafts untouched since `cutoff`, remembering each as expired at `now` (same
    /// transaction), and forgets tombstones older than `forgetBefore`; returns the photo ids to remove.
    func sweepDrafts(untouchedSince cutoff: Double, now: Double, forgetBefore: Double) throws -> [String]
    /// The user's expired draft of that id (another user's reads as none).
    func expiredDraft(localID: String, userID: Int64) throws -> ExpiredDraft?
    /// The user's newest expired draft with photos not announced yet; marks all of theirs announced.
    func announceExpiry(userID: Int64, now: Double) throws -> ExpiredDraft?
    /// Marks one expired draft announced.
    func markAnnounced(localID: String, userID: Int64, now: Double) throws
    /// Queues the draft (SUB-06) once per token, located at its best photo fix.
    func submit(draftLocalID: String, userID: Int64, fields: ReportFields, token: String, now: Double) throws
        -> SubmitResult
    /// Names and positions of the user's reports (not drafts, not cancelled or deleted) that have a
    /// name and a position (the report's own, else each of its photos'), at most `limit` of them.
    func namedPlaces(userID: Int64, limit: Int) throws -> [NamedPlace]
    /// The device's report of that id (made in the browser's outbox, sent later): a draft made
    /// now if there is none (never the creation page's open draft), the same draft when sent again,
    /// `.submitted` once past its draft, `.elsewhere` when the id is another user's.
    func openDeviceDraft(localID: String, userID: Int64, now: Double) throws -> DeviceDraftState
    /// Whether the user's report of that id is past its draft (queued or further).
    func isSubmitted(localID: String, userID: Int64) throws -> Bool
}

/// What a device's report id finds on the server.
enum DeviceDraftState: Sendable {
    case draft(Draft)
    case submitted, elsewhere
}

/// A report being made (state 'draft'), as the creation and submission pages see it.
struct Draft: Sendable {
    var id: Int64
    var localID: String
    var userID: Int64
    var updatedAt: Double

    /// Most photos in one report (CRE-11).
    static let maximumPhotos = 20
}

struct DraftPhoto: Sendable, Encodable {
    var localID: String
    var position: Int
    var contentType: String
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?

    enum CodingKeys: String, CodingKey {
        case localID = "id"
        case position, contentType, latitude, longitude, accuracy
    }
}

/// What a new photo row holds (its files are already in place).
struct NewPhoto: Sendable {
    var localID: String
    var contentType: String
    var size: Int
    var sha256: String
    var width: Int
    var height: Int
    var fix: PhotoFix?
    var capturedAt: String
}

/// Where a photo was taken: from the browser's fix or from the file's EXIF GPS.
struct PhotoFix: Sendable, Equatable {
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var altitude: Double?
}

enum PhotoAddResult: Sendable, Equatable {
    case added(position: Int)
    case full, gone
}

enum SubmitResult: Sendable, Equatable { case queued, alreadySubmitted, noPhotos, gone }

/// A draft the sweep removed, as its tombstone remembers it.
struct ExpiredDraft: Sendable, Equatable {
    var localID: String
    var photoCount: Int
    var expiredAt: Double
}

/// The fields of a report as the submission form gives them, already checked (`SubmitForm`).
struct ReportFields: Sendable {
    var name: String
    var designation: String
    var condition: String
    var occupancy: String
    var priorityCategory: String
    var ownerType: String
    var grade: String
    /// The site of the register the report belongs to; one the register does not have is left out.
    var siteID: Int64? = nil
}

/// A report's name at a position, for the submission page's suggestions.
struct NamedPlace: Sendable, Equatable {
    var name: String
    var latitude: Double
    var longitude: Double
}
