import SQLiteStorage

extension SQLDraftStore {
    /// The device's report of that id, made a draft when there is none yet. The same id sent again (an
    /// answer lost on the way back) finds the same row: one report, answered the same.
    func openDeviceDraft(localID: String, userID: Int64, now: Double) throws -> DeviceDraftState {
        try database.write { db in
            _ = try db.run(
                """
                INSERT INTO reports (user_id, local_id, state, creation_time, updated_at, from_device)
                VALUES (?, ?, 'draft', ?, ?, 1) ON CONFLICT (local_id) DO NOTHING
                """, .integer(userID), .text(localID), .real(now), .real(now))
            guard
                let row = try db.query(
                    "SELECT id, user_id, state FROM reports WHERE local_id = ?", .text(localID)
                ).first, let id = try row.int(0)
            else { throw StoreError(.invariant, "device draft missing after its insert") }
            guard try row.int(1) == userID else { return .elsewhere }
            guard try row.string(2) == "draft" else { return .submitted }
            _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", .real(now), .integer(id))
            return .draft(Draft(id: id, localID: localID, userID: userID, updatedAt: now))
        }
    }

    /// Whether the user's report of that id is past its draft (queued, sent, stored, or deleted since).
    func isSubmitted(localID: String, userID: Int64) throws -> Bool {
        try database.read { db in
            let state = try db.scalar(
                "SELECT state FROM reports WHERE local_id = ? AND user_id = ?", .text(localID), .integer(userID)
            ).string
            return state != nil && state != "draft"
        }
    }
}
