import FoundationEssentials
import PlatformClient

/// What the local platform keeps. Narrow on purpose: an in-memory store for unit tests, an SQLite one
/// for the running platform. Calls are made under the platform's write lock when they must be atomic
/// together (sign-up, idempotent creates), so implementations need only be safe per call.
public protocol LocalPlatformStore: Sendable {
    func account(email: String) throws -> AccountRecord?
    func insertAccount(_ account: AccountRecord) throws
    func insertSession(_ session: SessionRecord) throws
    func session(id: String) throws -> SessionRecord?
    func insertReport(_ report: ReportRecord) throws
    /// A report, deleted or not.
    func report(id: String) throws -> ReportRecord?
    /// The owner's reports that are not deleted, oldest first.
    func reports(ownerID: String) throws -> [ReportRecord]
    func markReportDeleted(id: String, at time: Date) throws
    func insertPhoto(_ photo: PhotoRecord) throws
    func photos(reportID: String) throws -> [PhotoRecord]
    func idempotentAnswer(scope: String, key: String) throws -> IdempotentAnswer?
    func saveIdempotentAnswer(_ answer: IdempotentAnswer) throws
}

public struct AccountRecord: Sendable, Equatable {
    public var id: String
    public var email: String
    /// PBKDF2-HMAC-SHA256 of the password with `salt`; the password itself is never kept.
    public var passwordHash: [UInt8]
    public var salt: [UInt8]
    public var iterations: Int
    public var creationTime: Date
}

public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var accountID: String
    public var appKey: String
    public var creationTime: Date
    public var expirationTime: Date
}

public struct ReportRecord: Sendable, Equatable {
    public var id: String
    public var ownerID: String
    public var report: NewReport
    public var creationTime: Date
    public var updateTime: Date
    public var deletedTime: Date?
}

public struct PhotoRecord: Sendable, Equatable {
    public var id: String
    public var reportID: String
    /// Where the file is kept under the platform's data folder.
    public var path: String
    public var contentType: String
    public var size: Int
    public var sha256: String
    public var latitude: Double?
    public var longitude: Double?
    public var accuracy: Double?
    public var altitude: Double?
    public var capturedAt: String?
    public var creationTime: Date
}

/// The first answer to an idempotent POST, replayed for a retry with the same key and body.
public struct IdempotentAnswer: Sendable, Equatable {
    /// Consumer key and session: one client's keys never collide with another's.
    public var scope: String
    public var key: String
    /// SHA-256 of what makes two requests "the same" (path and body).
    public var fingerprint: String
    public var status: Int
    public var body: [UInt8]
}
