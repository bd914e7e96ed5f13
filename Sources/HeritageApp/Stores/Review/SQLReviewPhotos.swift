import SQLiteStorage

/// Which photo files the review may serve, once for both databases: a photo of a report on the review
/// (`ReviewSQL.reviewable`, the trash included), never one of a draft, of a report its reporter
/// deleted, or of a kiosk visit still in progress.
enum SQLReviewPhotos<Backend: SQLBackend> {
    static func isReviewable(_ db: Backend.Connection, photoID: String) throws -> Bool {
        try db.scalar(
            """
            SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id
            WHERE p.local_id = ? AND \(ReviewSQL.reviewable)
            """, .text(photoID)
        ).int ?? 0 > 0
    }
}
