import Basics
import PlatformClient
import SQLiteStorage

/// What a coordinator chose to be told by mail (NOT-02, migration 21).
struct CoordinatorChoice: Sendable, Equatable {
    enum Mode: String, Sendable, CaseIterable {
        case none
        case eachKiosk = "each_kiosk"
        case eachAll = "each_all"
        case hourly, daily
    }
    var mode = Mode.none
    /// The hour of the daily digest (and of an administrator's daily note), 0…23, in `timeZone`.
    var digestHour = 8
    var timeZone = "UTC"
}

/// A coordinator or administrator the digest pass looks at.
struct DigestRecipient: Sendable, Equatable {
    let userID: Int64
    let choice: CoordinatorChoice
    /// When the choice was saved: no digest for a period that began before it.
    let since: Double
    let isAdmin: Bool
    let wantsAdminNote: Bool
}

/// What a digest says, kept in the row's `detail` so that the notifications page shows the same counts
/// the mail did: `waiting=3;oldest=7200;replies=1;failures=0;folded=2`.
struct DigestCounts: Sendable, Equatable {
    var waiting = 0
    /// Seconds since the oldest waiting report arrived, at the digest's making.
    var oldestAge = 0
    var replies = 0
    var failures = 0
    /// Reports whose immediate mail the hourly cap held back.
    var folded = 0

    var isEmpty: Bool { waiting == 0 && replies == 0 && failures == 0 && folded == 0 }

    var detail: String {
        "waiting=\(waiting);oldest=\(oldestAge);replies=\(replies);failures=\(failures);folded=\(folded)"
    }

    init(waiting: Int = 0, oldestAge: Int = 0, replies: Int = 0, failures: Int = 0, folded: Int = 0) {
        (self.waiting, self.oldestAge, self.replies, self.failures, self.folded) =
            (waiting, oldestAge, replies, failures, folded)
    }

    /// `name=1;other=2` as a dictionary (a digest's or an administrator's note's `detail`).
    static func pairs(_ detail: String) -> [String: Int] {
        var values: [String: Int] = [:]
        for pair in detail.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    init(detail: String) {
        let values = Self.pairs(detail)
        self.init(
            waiting: values["waiting"] ?? 0, oldestAge: values["oldest"] ?? 0, replies: values["replies"] ?? 0,
            failures: values["failures"] ?? 0, folded: values["folded"] ?? 0)
    }
}

/// One message the mail server refused for good (a 5xx, or the attempts' cap), for the admins' page.
struct FailedMail: Sendable, Equatable {
    let id: Int64
    let email: String
    let kind: String
    let createdAt: Double
    let attempts: Int
    let lastReply: String
}

/// The coordinators' and administrators' side of the mail outbox (NOT-02, NOT-04).
protocol CoordinatorMailStore: Sendable {
    func coordinatorChoice(userID: Int64) throws -> CoordinatorChoice
    func saveCoordinatorChoice(_ choice: CoordinatorChoice, userID: Int64, now: Double) throws
    /// An administrator's daily note of old problems: on by default.
    func wantsAdminNote(userID: Int64) throws -> Bool
    func saveAdminNote(_ wanted: Bool, userID: Int64) throws
    /// Every account holding a role, with an address.
    func digestRecipients() throws -> [DigestRecipient]
    /// Queues the digest of one period (`key`) for the user, with the counts of this moment, unless
    /// there is nothing to tell, or the period has its digest already (on any node). `foldedBefore`:
    /// only reports the hourly cap held back in the hour before it make it worth sending (the immediate
    /// mail's coordinators); nil for a digest chosen as such. True when a row was queued.
    func queueDigest(userID: Int64, key: String, foldedBefore: Double?, now: Double, token: String) throws -> Bool
    /// Queues an administrator's daily note when a delivery failure or a kiosk needing attention is older
    /// than `olderThan`. True when a row was queued.
    func queueAdminNote(userID: Int64, key: String, olderThan: Double, now: Double, token: String) throws -> Bool
    func failedMail(limit: Int) throws -> [FailedMail]
    /// Puts a failed message back in the queue, as new; false when it is not failed (any more).
    func retryFailed(id: Int64, now: Double) throws -> Bool
}

/// Queues coordinators' immediate mail in the transaction of a report's arrival.
enum CoordinatorMailSQL {
    /// The roles that review: coordinators and administrators, bound to an account that is no kiosk's.
    static let reviewers = """
        users u JOIN user_roles ur ON ur.account_id = u.account_id
        WHERE u.kiosk_id IS NULL AND u.email LIKE '%@%' AND ur.role IN ('coordinator', 'admin')
        """

    /// One row per coordinator who chose each report (of a kiosk, or of any origin): `queued` while the
    /// coordinator got fewer than `cap` such mails in the last hour, else `skipped` with detail `folded`,
    /// for the next hour's digest. The row is still their notice in the app.
    static func queueArrival(_ db: some SQLConnection, reportID: Int64, cap: Int, now: Double) throws {
        let recent = """
            (SELECT count(*) FROM mail_outbox m
             WHERE m.user_id = u.id AND m.kind = 'report_arrived' AND m.state <> 'skipped' AND m.created_at > ?)
            """
        try db.run(
            """
            INSERT INTO mail_outbox (event_key, user_id, kind, report_id, language, detail, token, state,
                next_attempt_at, created_at)
            SELECT 'arrived:' || CAST(r.id AS text), u.id, 'report_arrived', r.id, COALESCE(u.language, 'en'),
                CASE WHEN \(recent) < ? THEN NULL ELSE 'folded' END,
                CAST(? AS text) || CAST(u.id AS text),
                CASE WHEN \(recent) < ? THEN 'queued' ELSE 'skipped' END, ?, ?
            FROM reports r, \(reviewers)
              AND r.id = ?
              AND (u.coordinator_mail = 'each_all' OR (u.coordinator_mail = 'each_kiosk' AND r.origin = 'kiosk'))
            ON CONFLICT (event_key, user_id) DO NOTHING
            """, .real(now - 3600), .integer(Int64(cap)), .text(Crypto.randomHex(bytes: 12) + "a"),
            .real(now - 3600), .integer(Int64(cap)), .real(now), .real(now), .integer(reportID))
    }
}
