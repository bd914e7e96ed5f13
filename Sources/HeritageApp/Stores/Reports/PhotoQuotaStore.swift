import SQLiteStorage

/// What a user's photos take, for the per-user quotas.
protocol PhotoQuotaStore: Sendable {
    /// How many photos the user added since `since`, and the bytes of their photos the platform does
    /// not have yet (drafts' and queued reports' photos: the files this server must keep).
    func photoUsage(userID: Int64, since: Double) throws -> PhotoUsage
}

struct PhotoUsage: Sendable, Equatable {
    var addedSince: Int
    var undeliveredBytes: Int
}

/// `PhotoQuotaStore`, once for both databases: one pass over the user's reports' photos
/// (`reports_user_time`, `photos_report`); the sums cast to `bigint`, which PostgreSQL's `sum` of a
/// `bigint` (a `numeric`) needs and SQLite takes as an integer.
struct SQLPhotoQuotaStore<Backend: SQLBackend>: PhotoQuotaStore {
    let database: Backend

    func photoUsage(userID: Int64, since: Double) throws -> PhotoUsage {
        let rows = try database.read { db in
            try db.query(
                """
                SELECT CAST(COALESCE(SUM(CASE WHEN p.created_at > ? THEN 1 ELSE 0 END), 0) AS bigint) AS added,
                       CAST(COALESCE(SUM(CASE WHEN p.state <> 'stored' THEN p.size ELSE 0 END), 0) AS bigint) AS bytes
                FROM photos p JOIN reports r ON r.id = p.report_id
                WHERE r.user_id = ?
                """, .real(since), .integer(userID))
        }
        return try Backend.mapped {
            PhotoUsage(
                addedSince: Int(try rows.first?.int("added") ?? 0),
                undeliveredBytes: Int(try rows.first?.int("bytes") ?? 0))
        }
    }
}
