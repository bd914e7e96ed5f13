import SQLiteStorage

extension SQLDraftStore {
    /// The user's expired draft of that id; nil for an id never seen, forgotten, or another user's
    /// (which must read exactly like an unknown one).
    func expiredDraft(localID: String, userID: Int64) throws -> ExpiredDraft? {
        try database.read { db in
            guard
                let row = try db.query(
                    "SELECT photo_count, expired_at FROM expired_drafts WHERE local_id = ? AND user_id = ?",
                    .text(localID), .integer(userID)
                ).first
            else { return nil }
            return ExpiredDraft(
                localID: localID, photoCount: Int(try row.int(0) ?? 0), expiredAt: try row.double(1) ?? 0)
        }
    }

    /// The user's newest expired draft that had photos and that no page has told them about yet, marked
    /// told (with every other one of theirs): a page that opens a new draft says once what became of
    /// the last one. An empty draft going is not worth a word.
    func announceExpiry(userID: Int64, now: Double) throws -> ExpiredDraft? {
        try database.write { db in
            let row = try db.query(
                """
                SELECT local_id, photo_count, expired_at FROM expired_drafts
                WHERE user_id = ? AND announced_at IS NULL AND photo_count > 0
                ORDER BY expired_at DESC LIMIT 1
                """, .integer(userID)
            ).first
            guard let row, let localID = try row.string(0) else { return nil }
            _ = try db.run(
                "UPDATE expired_drafts SET announced_at = ? WHERE user_id = ? AND announced_at IS NULL",
                .real(now), .integer(userID))
            return ExpiredDraft(
                localID: localID, photoCount: Int(try row.int(1) ?? 0), expiredAt: try row.double(2) ?? 0)
        }
    }

    /// Marks one expired draft told (its page said so through its own link).
    func markAnnounced(localID: String, userID: Int64, now: Double) throws {
        try database.write { db in
            _ = try db.run(
                "UPDATE expired_drafts SET announced_at = ? WHERE local_id = ? AND user_id = ? AND announced_at IS NULL",
                .real(now), .text(localID), .integer(userID))
        }
    }
}
