import FoundationEssentials
import SQLiteStorage

/// `DraftStore`, once for both databases (`SQLBackend`): rows of `reports` in state 'draft', their `photos`, and `expired_drafts`.
struct SQLDraftStore<Backend: SQLBackend>: DraftStore {
    let database: Backend
    /// Coordinators' immediate mail per hour, each (`mail_immediate_per_hour`).
    var mailImmediatePerHour = 10

    /// A draft past its retention is not taken up again, even before the sweep has removed it: the
    /// retention is the same whichever request comes first.
    func openDraft(userID: Int64, now: Double, freshSince cutoff: Double) throws -> (Draft, Bool) {
        try database.write { db in
            if let row = try db.query(
                """
                SELECT id, local_id, updated_at FROM reports WHERE user_id = ? AND state = 'draft' AND from_device = 0 AND updated_at >= ?
                ORDER BY id DESC LIMIT 1
                """,
                .integer(userID), .real(cutoff)
            ).first, let id = try row.int(0), let localID = try row.string(1) {
                // Opening a draft is working on it: it is abandoned only after the retention with no visit.
                _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", .real(now), .integer(id))
                return (Draft(id: id, localID: localID, userID: userID, updatedAt: now), false)
            }
            let localID = UUID().uuidString.lowercased()
            _ = try db.run(
                "INSERT INTO reports (user_id, local_id, state, creation_time, updated_at) VALUES (?, ?, 'draft', ?, ?)",
                .integer(userID), .text(localID), .real(now), .real(now))
            let id = try db.scalar("SELECT id FROM reports WHERE local_id = ?", .text(localID)).int ?? 0
            return (Draft(id: id, localID: localID, userID: userID, updatedAt: now), true)
        }
    }

    /// The draft of that id when it belongs to the user and is still a draft; nil otherwise (a 404:
    /// another user's draft is indistinguishable from one that does not exist).
    func draft(localID: String, userID: Int64) throws -> Draft? {
        try database.read { db in
            guard
                let row = try db.query(
                    "SELECT id, updated_at FROM reports WHERE local_id = ? AND user_id = ? AND state = 'draft'",
                    .text(localID), .integer(userID)
                ).first, let id = try row.int(0)
            else { return nil }
            return Draft(id: id, localID: localID, userID: userID, updatedAt: try row.double(1) ?? 0)
        }
    }

    func photos(reportID: Int64) throws -> [DraftPhoto] {
        try database.read { db in
            try db.query(
                "SELECT local_id, position, content_type, latitude, longitude, accuracy FROM photos WHERE report_id = ? ORDER BY position",
                .integer(reportID)
            ).map { row in
                DraftPhoto(
                    localID: try row.string(0) ?? "", position: Int(try row.int(1) ?? 0),
                    contentType: try row.string(2) ?? "",
                    latitude: try row.double(3), longitude: try row.double(4), accuracy: try row.double(5))
            }
        }
    }

    /// A photo of this draft by its id, for a replayed upload; nil when there is none. `ownedElsewhere`
    /// is true when the id is taken by a photo of another report.
    func photo(localID: String, draft: Draft) throws -> (photo: DraftPhoto?, ownedElsewhere: Bool) {
        try database.read { db in
            let rows = try db.query(
                "SELECT report_id, local_id, position, content_type, latitude, longitude, accuracy FROM photos WHERE local_id = ?",
                .text(localID))
            guard let row = rows.first else { return (nil, false) }
            guard try row.int(0) == draft.id else { return (nil, true) }
            return (
                DraftPhoto(
                    localID: try row.string(1) ?? "", position: Int(try row.int(2) ?? 0),
                    contentType: try row.string(3) ?? "",
                    latitude: try row.double(4), longitude: try row.double(5), accuracy: try row.double(6)), false
            )
        }
    }

    func photoCount(reportID: Int64) throws -> Int {
        try database.read { db in
            Int(try db.scalar("SELECT count(*) FROM photos WHERE report_id = ?", .integer(reportID)).int ?? 0)
        }
    }

    /// Adds the photo at the end of the row, unless the report already has its 20 (checked inside the
    /// write transaction: two uploads racing for the 20th place cannot both win).
    func addPhoto(_ photo: NewPhoto, to draft: Draft, now: Double) throws -> PhotoAddResult {
        try database.write { db in
            guard try db.scalar("SELECT state FROM reports WHERE id = ?", .integer(draft.id)).string == "draft" else {
                return .gone
            }
            let count = try db.scalar("SELECT count(*) FROM photos WHERE report_id = ?", .integer(draft.id)).int ?? 0
            guard count < Draft.maximumPhotos else { return .full }
            let position = Int(
                try db.scalar(
                    "SELECT coalesce(max(position), -1) + 1 FROM photos WHERE report_id = ?", .integer(draft.id)
                ).int ?? 0)
            _ = try db.run(
                """
                INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, width, height,
                    latitude, longitude, accuracy, altitude, captured_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(draft.id), .text(photo.localID), .integer(Int64(position)), .text(photo.contentType),
                    .integer(Int64(photo.size)), .text(photo.sha256), .integer(Int64(photo.width)),
                    .integer(Int64(photo.height)), SQLValue(photo.fix?.latitude), SQLValue(photo.fix?.longitude),
                    SQLValue(photo.fix?.accuracy), SQLValue(photo.fix?.altitude), .text(photo.capturedAt), .real(now),
                ])
            _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", .real(now), .integer(draft.id))
            return .added(position: position)
        }
    }

    /// Removes the photo's row when it belongs to this draft; true when a row went.
    func deletePhoto(localID: String, draft: Draft, now: Double) throws -> Bool {
        try database.write { db in
            // Only while the report is still a draft: once submitted, its photos belong to the outbox (a
            // removal racing a Submit must not take a photo from a queued report).
            let removed = try db.run(
                """
                DELETE FROM photos WHERE local_id = ? AND report_id = ?
                    AND report_id IN (SELECT id FROM reports WHERE id = ? AND state = 'draft')
                """, .text(localID), .integer(draft.id), .integer(draft.id))
            _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", .real(now), .integer(draft.id))
            return removed > 0
        }
    }

    /// Deletes the user's drafts (Cancel); returns the photo ids whose files are to go.
    func cancelDrafts(userID: Int64) throws -> [String] {
        try deleteDrafts(where: "user_id = ? AND from_device = 0", .integer(userID), expiredAt: nil)
    }

    /// Deletes drafts untouched since `cutoff` (abandoned), remembering each in `expired_drafts`, and
    /// forgets those remembered before `forgetBefore`; returns the photo ids whose files are to go.
    func sweepDrafts(untouchedSince cutoff: Double, now: Double, forgetBefore: Double) throws -> [String] {
        try deleteDrafts(where: "updated_at < ?", .real(cutoff), expiredAt: now) { db in
            _ = try db.run("DELETE FROM expired_drafts WHERE expired_at < ?", .real(forgetBefore))
        }
    }

    private func deleteDrafts(
        where condition: String, _ parameter: SQLValue, expiredAt: Double?,
        also: (Backend.Connection) throws -> Void = { _ in }
    ) throws -> [String] {
        try database.write { db in
            try also(db)
            if let expiredAt {
                // In the same transaction as the deletion: a draft is never gone without its tombstone.
                _ = try db.run(
                    """
                    INSERT INTO expired_drafts (local_id, user_id, photo_count, expired_at)
                    SELECT r.local_id, r.user_id, (SELECT count(*) FROM photos p WHERE p.report_id = r.id), ?
                    FROM reports r WHERE r.state = 'draft' AND r.\(condition)
                    ON CONFLICT (local_id) DO UPDATE SET user_id = excluded.user_id,
                        photo_count = excluded.photo_count, expired_at = excluded.expired_at, announced_at = NULL
                    """, .real(expiredAt), parameter)
            }
            let ids = try db.query(
                "SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.state = 'draft' AND r.\(condition)",
                parameter
            ).compactMap { try $0.string(0) }
            _ = try db.run(
                "DELETE FROM photos WHERE report_id IN (SELECT id FROM reports WHERE state = 'draft' AND \(condition))",
                parameter)
            _ = try db.run("DELETE FROM reports WHERE state = 'draft' AND \(condition)", parameter)
            return ids
        }
    }

    /// The stored content type of a photo of this user's, or nil (someone else's, or none).
    func ownedPhotoType(localID: String, userID: Int64) throws -> String? {
        try database.read { db in
            try db.scalar(
                "SELECT p.content_type FROM photos p JOIN reports r ON r.id = p.report_id WHERE p.local_id = ? AND r.user_id = ?",
                .text(localID), .integer(userID)
            ).string
        }
    }
}
