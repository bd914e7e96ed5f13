import FoundationEssentials
import HTTPServer
import Storage

/// One row of the list page's live status (`GET /api/reports/status`): what the row shows and, for a
/// stuck report, what the user can do about it.
struct ReportStatusRow: Sendable, Equatable, Encodable {
    var localID: String
    var state: String
    var photosSent: Int
    var photosTotal: Int
    /// Short text for the row (docs/DATA.md, "row shows").
    var label: String
    /// For a stuck report: why, and what the user can do; nil otherwise.
    var message: String?

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case state
        case photosSent = "photos_sent"
        case photosTotal = "photos_total"
        case label, message
    }
}

/// The live status of a user's reports, polled by the list page. Rows the user deleted, and drafts,
/// are not in it: the page drops a row that is no longer listed.
struct ReportStatusEndpoint: Sendable {
    let store: DatabasePool

    func statusRows(userID: Int64) throws -> [ReportStatusRow] {
        try store.read { db in
            try db.query(
                """
                SELECT r.local_id, r.state, r.last_error,
                    (SELECT count(*) FROM photos p WHERE p.report_id = r.id AND p.state = 'stored') AS sent,
                    (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS total
                FROM reports r
                WHERE r.user_id = ? AND r.state NOT IN ('draft', 'deleting', 'cancelled', 'deleted')
                ORDER BY r.creation_time DESC, r.id DESC
                """, .integer(userID)
            ).map { row in
                let state = ReportState(rawValue: try row.string("state") ?? "") ?? .held
                let sent = Int(try row.int("sent") ?? 0)
                let total = Int(try row.int("total") ?? 0)
                let (label, message) = Self.describe(
                    state, sent: sent, total: total, lastError: try row.string("last_error"))
                return ReportStatusRow(
                    localID: try row.string("local_id") ?? "", state: state.rawValue, photosSent: sent,
                    photosTotal: total, label: label, message: message)
            }
        }
    }

    static func describe(_ state: ReportState, sent: Int, total: Int, lastError: String?) -> (String, String?) {
        switch state {
        case .queued, .creating, .created: ("Queued", nil)
        case .uploading: ("Queued (\(sent) of \(total) photos)", nil)
        case .retryWait:
            ("Queued, retrying", "The platform could not be reached; it is retried automatically. Nothing to do.")
        case .stored: ("Stored", nil)
        case .needsAttention:
            (
                lastError ?? "The platform refused this report.",
                "The platform refused this report: \(lastError ?? "no reason given"). Correct it, or ask a coordinator to retry it."
            )
        case .waitingSignIn: ("Sign in again", "Your sign-in expired. Sign in again and sending resumes by itself.")
        case .held: ("Held", "A coordinator paused sending this report.")
        case .draft, .deleting, .cancelled, .deleted: ("", nil)
        }
    }

    /// The JSON answer for a signed-in user; 401 for anyone else.
    func response(userID: Int64?) -> Response {
        guard let userID else { return Response.json(Array(#"{"error":"sign in first"}"#.utf8), status: 401) }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var response = Response.json(Array(try encoder.encode(["reports": try statusRows(userID: userID)])))
            response.headers.add("Cache-Control", "no-store")
            return response
        } catch {
            return Response.json(Array(#"{"error":"status unavailable"}"#.utf8), status: 503)
        }
    }

    /// `GET /api/reports/status`, for the user `currentUserID` finds for a request (the screens'
    /// session lookup).
    func addRoute(to router: inout Router, currentUserID: @escaping @Sendable (Request) -> Int64?) {
        let endpoint = self
        router.getInline("/api/reports/status") { request in endpoint.response(userID: currentUserID(request)) }
    }
}
