import SQLiteStorage

/// The drafts' submission and named places, once for both databases (their stores call these inside
/// their own transactions; a kiosk's submission calls `submit` inside the one that also writes its
/// receipt and audit row).
enum SQLDraftStatements<Backend: SQLBackend> {
    /// Queues the draft (SUB-06). The submit token makes it happen once: a replayed or double-clicked
    /// POST finds its token already used and changes nothing. The location is the best-accuracy fix
    /// among the photos (the first one with a fix when none says how accurate it is).
    static func submit(
        _ db: Backend.Connection, draftLocalID: String, userID: Int64, fields: ReportFields, token: String, now: Double,
        mailCap: Int
    ) throws -> SubmitResult {
        if try db.scalar("SELECT count(*) FROM reports WHERE submit_token = ?", .text(token)).int ?? 0 > 0 {
            return .alreadySubmitted
        }
        guard
            let id = try db.scalar(
                "SELECT id FROM reports WHERE local_id = ? AND user_id = ? AND state = 'draft'",
                .text(draftLocalID),
                .integer(userID)
            ).int
        else { return .gone }
        let located = try db.query(
            """
            SELECT latitude, longitude, accuracy, altitude FROM photos
            WHERE report_id = ? AND latitude IS NOT NULL AND longitude IS NOT NULL
            ORDER BY accuracy IS NULL, accuracy, position LIMIT 1
            """, .integer(id)
        ).first
        guard try db.scalar("SELECT count(*) FROM photos WHERE report_id = ?", .integer(id)).int ?? 0 > 0 else {
            return .noPhotos
        }
        // The site: the kiosk's when it has one (every report of a kiosk belongs to its site), else the
        // volunteer's pick when the register has it, else what the draft had.
        _ = try db.run(
            """
            UPDATE reports SET state = 'queued', name = ?, designation = ?, condition = ?, occupancy = ?,
                priority_category = ?, owner_type = ?, grade = ?, latitude = ?, longitude = ?, accuracy = ?,
                altitude = ?, submitted_at = ?, submit_token = ?, updated_at = ?,
                site_id = coalesce((SELECT k.site_id FROM kiosks k WHERE k.id = reports.kiosk_id),
                    (SELECT s.id FROM sites s WHERE s.id = ?), site_id)
            WHERE id = ? AND state = 'draft'
            """,
            [
                .text(fields.name), .text(fields.designation), .text(fields.condition), .text(fields.occupancy),
                .text(fields.priorityCategory), .text(fields.ownerType), .text(fields.grade),
                SQLValue(try located?.double(0)), SQLValue(try located?.double(1)),
                SQLValue(try located?.double(2)), SQLValue(try located?.double(3)),
                .real(now), .text(token), .real(now), fields.siteID.map(SQLValue.integer) ?? .null, .integer(id),
            ])
        // The coordinators who chose each report hear of it in this same transaction (NOT-02).
        try CoordinatorMailSQL.queueArrival(db, reportID: id, cap: mailCap, now: now)
        return .queued
    }

    static func namedPlaces(_ db: Backend.Connection, userID: Int64, limit: Int) throws -> [NamedPlace] {
        try db.query(
            """
            SELECT r.name, coalesce(r.latitude, p.latitude), coalesce(r.longitude, p.longitude)
            FROM reports r LEFT JOIN photos p ON p.report_id = r.id
            WHERE r.user_id = ? AND r.name IS NOT NULL AND r.name != ''
              AND r.state NOT IN ('draft', 'cancelled', 'deleted', 'deleting')
              AND coalesce(r.latitude, p.latitude) IS NOT NULL
            LIMIT ?
            """, .integer(userID), .integer(Int64(limit))
        ).compactMap { row -> NamedPlace? in
            guard let name = try row.string(0), let latitude = try row.double(1), let longitude = try row.double(2)
            else { return nil }
            return NamedPlace(name: name, latitude: latitude, longitude: longitude)
        }
    }
}
