import Basics
import FoundationEssentials
import PlatformClient

/// The report states of docs/DATA.md, as the `reports.state` column spells them.
enum ReportState: String, Sendable, CaseIterable {
    case draft, queued, creating, created, uploading, stored
    case retryWait = "retry_wait"
    case needsAttention = "needs_attention"
    case waitingSignIn = "waiting_signin"
    case held, deleting, cancelled, deleted
    /// Stopped by the review (rejected, duplicate) while the platform had or may have had it: the worker
    /// removes it there once the undo window has passed; then withdrawn (docs/REVIEW.md).
    case withdrawing, withdrawn

    /// States the worker drives forward by itself (retry_wait once its time has come).
    static let active: [ReportState] = [.queued, .creating, .created, .uploading, .retryWait]

    /// The state named `text`, as `init(rawValue:)` answers, found by its length first and then one
    /// to three comparisons of short strings: `init(rawValue:)` goes through the generic string
    /// switch, about 600 instructions a row of the list (callgrind, docs/BENCHMARKS.md).
    /// `ReportStateParseTests` compares the two on every state and on near misses.
    static func parse(_ text: String) -> ReportState? {
        func named(_ state: ReportState) -> ReportState? { state.rawValue == text ? state : nil }
        switch text.utf8.count {
        case 4: return named(.held)
        case 5: return named(.draft)
        case 6: return named(.queued) ?? named(.stored)
        case 7: return named(.created) ?? named(.deleted)
        case 8: return named(.creating) ?? named(.deleting)
        case 9: return named(.uploading) ?? named(.cancelled) ?? named(.withdrawn)
        case 10: return named(.retryWait)
        case 11: return named(.withdrawing)
        case 14: return named(.waitingSignIn)
        case 15: return named(.needsAttention)
        default: return nil
        }
    }
}

/// One report of the outbox with what the worker needs to send it.
struct OutboxReport: Sendable, Equatable {
    var id: Int64
    var userID: Int64
    var localID: String
    var platformReportID: String?
    var state: ReportState
    var name: String?
    var designation: String?
    var condition: String?
    var occupancy: String?
    var priorityCategory: String?
    var ownerType: String?
    var grade: String?
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var altitude: Double?
    var attempts: Int
    var nextAttemptAt: Double?
    var lastError: String?
    var createAttemptedAt: Double?
    /// A kiosk's report (KIO-05): sent as `is_anonymous`, the visitor being no account's.
    var isAnonymous = false
    /// Rejected, marked duplicate or in the trash: never created nor completed on the platform.
    var isStoppedByReview = false
    /// A withdrawal starts no earlier than this (the end of the decision's undo window).
    var withdrawAfter: Double?

    /// The body of the create, or why it cannot be made (a code the platform does not know is a
    /// mistake a retry cannot fix: needs attention, without a call).
    func newReport() -> Result<NewReport, OutboxProblem> {
        func code<C: RawRepresentable<String>>(_ value: String?, _ field: String) -> Result<C, OutboxProblem> {
            guard let value, let parsed = C(rawValue: value) else {
                return .failure(OutboxProblem("\(field) \"\(value ?? "")\" is not a value the platform accepts"))
            }
            return .success(parsed)
        }
        do {
            var location: Location?
            if let latitude, let longitude {
                location = Location(latitude: latitude, longitude: longitude, accuracy: accuracy, altitude: altitude)
            }
            return .success(
                NewReport(
                    condition: try code(condition, "condition").get(),
                    designation: try code(designation, "designation").get(),
                    grade: try code(grade, "grade").get(),
                    occupancy: try code(occupancy, "occupancy").get(),
                    ownerType: try code(ownerType, "owner_type").get(),
                    placeName: name ?? "",
                    priorityCategory: try code(priorityCategory, "priority_category").get(),
                    location: location, isAnonymous: isAnonymous ? true : nil))
        } catch {
            return .failure(error)
        }
    }
}

/// A message for needs attention that did not come from the platform.
struct OutboxProblem: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One photo of an outbox report.
struct OutboxPhoto: Sendable, Equatable {
    enum State: String, Sendable { case pending, uploading, stored }

    var id: Int64
    var localID: String
    var position: Int
    var contentType: String
    var size: Int
    var sha256: String
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var altitude: Double?
    var capturedAt: String?
    var state: State
    var platformPhotoID: String?

    /// The upload of this photo, streamed from `photos/<local_id>` in the data folder.
    func upload(photosDirectory: String) -> PhotoUpload {
        PhotoUpload(
            filePath: photosDirectory + "/" + localID, contentType: contentType, latitude: latitude,
            longitude: longitude, accuracy: accuracy, altitude: altitude,
            capturedAt: capturedAt.flatMap(ISO8601.parse))
    }
}

/// A user's platform session as the worker finds it in `users`.
struct OutboxSession: Sendable {
    var sessionID: String
    var expiresAt: Double?

    var platformSession: PlatformSession {
        PlatformSession(sessionID: sessionID, expirationTime: expiresAt.map { Date(timeIntervalSince1970: $0) })
    }

    /// Stands for the session in memory without keeping the id itself around.
    var fingerprint: String { SHA256Stream.hash(Array(sessionID.utf8)) }
}
