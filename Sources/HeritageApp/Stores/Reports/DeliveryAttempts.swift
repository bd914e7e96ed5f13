import SQLiteStorage

/// One call of the upload worker to the platform for a report, as the coordinator's report page lists
/// it (REV-06): when, which step (`create`, `photo N`, `delete`), the outcome, the HTTP
/// status when one was answered, and the error as `PlatformError` describes it (statuses and the
/// platform's own messages: never a session or a secret).
struct DeliveryAttempt: Sendable, Equatable {
    enum Outcome: String, Sendable {
        case ok, retry, failed
    }

    var at: Double
    var step: String
    var outcome: Outcome
    var httpStatus: Int?
    var error: String?
}

/// The `delivery_attempts` table, written once for both dialects (`SQLBackend`), always inside the
/// transaction of the outbox transition that records the call's outcome: fenced by the same lease, so
/// a node that lost the report writes no attempt either.
enum SQLDeliveryAttempts<Backend: SQLBackend> {
    /// How many attempts are kept per report (the oldest go first).
    static var kept: Int { 50 }
    /// An error longer than this is cut.
    static var errorLength: Int { 500 }

    /// The step the report is at, read before the transition changes it: `delete` while deleting,
    /// `create` until the platform gave an id, then `photo N` (the photo `photoID`, else the first
    /// one uploading; 1-based), or `photos` when none is uploading.
    static func step(_ db: Backend.Connection, reportID: Int64, photoID: Int64? = nil) throws -> String? {
        guard
            let row = try db.query("SELECT state, platform_report_id FROM reports WHERE id = ?", .integer(reportID))
                .first
        else { return nil }
        if try row.string("state") == "deleting" { return "delete" }
        if try row.string("state") == "withdrawing" { return "withdraw" }
        if try row.string("platform_report_id") == nil { return "create" }
        let position: SQLValue
        if let photoID {
            position = try db.scalar("SELECT position FROM photos WHERE id = ?", .integer(photoID))
        } else {
            position = try db.scalar(
                "SELECT min(position) FROM photos WHERE report_id = ? AND state = 'uploading'", .integer(reportID))
        }
        return position.int.map { "photo \($0 + 1)" } ?? "photos"
    }

    /// Appends an attempt and drops the report's attempts beyond the last `kept`.
    static func record(
        _ db: Backend.Connection, reportID: Int64, step: String, outcome: DeliveryAttempt.Outcome, status: Int?,
        error: String?, now: Double
    ) throws {
        _ = try db.run(
            "INSERT INTO delivery_attempts (report_id, at, step, outcome, http_status, error) VALUES (?, ?, ?, ?, ?, ?)",
            .integer(reportID), .real(now), .text(step), .text(outcome.rawValue), SQLValue(status.map(Int64.init)),
            SQLValue(error.map { String($0.prefix(errorLength)) }))
        _ = try db.run(
            """
            DELETE FROM delivery_attempts WHERE report_id = ? AND id <= (
                SELECT id FROM delivery_attempts WHERE report_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
            """, .integer(reportID), .integer(reportID), .integer(Int64(kept)))
    }

    /// A report's attempts, newest first, at most `limit`.
    static func list(_ db: Backend.Connection, reportID: Int64, limit: Int) throws -> [DeliveryAttempt] {
        try db.query(
            """
            SELECT at, step, outcome, http_status, error FROM delivery_attempts WHERE report_id = ?
            ORDER BY id DESC LIMIT ?
            """, .integer(reportID), .integer(Int64(limit))
        ).map { row in
            DeliveryAttempt(
                at: try row.double("at") ?? 0, step: try row.string("step") ?? "",
                outcome: DeliveryAttempt.Outcome(rawValue: try row.string("outcome") ?? "") ?? .failed,
                httpStatus: try row.int("http_status").map { Int($0) }, error: try row.string("error"))
        }
    }
}
