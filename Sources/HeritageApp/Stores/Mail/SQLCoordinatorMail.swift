import SQLiteStorage

extension SQLMailOutboxStore: CoordinatorMailStore {
    func coordinatorChoice(userID: Int64) throws -> CoordinatorChoice {
        try database.read { db in
            guard
                let row = try db.query(
                    "SELECT coordinator_mail, digest_hour, time_zone FROM users WHERE id = ?", .integer(userID)
                ).first
            else { return CoordinatorChoice() }
            return CoordinatorChoice(
                mode: CoordinatorChoice.Mode(rawValue: try row.string(0) ?? "") ?? .none,
                digestHour: Int(try row.int(1) ?? 8), timeZone: try row.string(2) ?? "UTC")
        }
    }

    func saveCoordinatorChoice(_ choice: CoordinatorChoice, userID: Int64, now: Double) throws {
        try database.write { db in
            _ = try db.run(
                """
                UPDATE users SET coordinator_mail = ?, digest_hour = ?, time_zone = ?, coordinator_mail_since = ?
                WHERE id = ?
                """, .text(choice.mode.rawValue), .integer(Int64(choice.digestHour)), .text(choice.timeZone),
                .real(now), .integer(userID))
        }
    }

    func wantsAdminNote(userID: Int64) throws -> Bool {
        try database.read { db in
            try db.scalar("SELECT mail_admin_note FROM users WHERE id = ?", .integer(userID)).int == 1
        }
    }

    func saveAdminNote(_ wanted: Bool, userID: Int64) throws {
        try database.write { db in
            _ = try db.run(
                "UPDATE users SET mail_admin_note = ? WHERE id = ?", .integer(wanted ? 1 : 0), .integer(userID))
        }
    }

    func digestRecipients() throws -> [DigestRecipient] {
        try database.read { db in
            try db.query(
                """
                SELECT u.id, u.coordinator_mail, u.digest_hour, u.time_zone, u.coordinator_mail_since, ur.role,
                    u.mail_admin_note
                FROM \(CoordinatorMailSQL.reviewers) ORDER BY u.id
                """
            ).map { row in
                DigestRecipient(
                    userID: try row.int(0) ?? 0,
                    choice: CoordinatorChoice(
                        mode: CoordinatorChoice.Mode(rawValue: try row.string(1) ?? "") ?? .none,
                        digestHour: Int(try row.int(2) ?? 8), timeZone: try row.string(3) ?? "UTC"),
                    since: try row.double(4) ?? 0, isAdmin: try row.string(5) == "admin",
                    wantsAdminNote: try row.int(6) == 1)
            }
        }
    }

    /// Due at once (`next_attempt_at` 0), whatever clock the pass was given. The pass runs every minute
    /// on every node: the counts are read in a snapshot, and the writer is taken only when the period
    /// still lacks its row and there is something to tell; the row's key settles any race between nodes.
    func queueDigest(userID: Int64, key: String, foldedBefore: Double?, now: Double, token: String) throws -> Bool {
        let counts = try database.read { db -> DigestCounts? in
            if try Self.exists(db, key: key, userID: userID) { return nil }
            var counts = try Self.waitingCounts(db, now: now)
            counts.folded = Int(
                try db.scalar(
                    """
                    SELECT count(*) FROM mail_outbox
                    WHERE user_id = ? AND kind = 'report_arrived' AND detail = 'folded' AND created_at >= ?
                        AND created_at < ?
                    """, .integer(userID), .real((foldedBefore ?? now) - 3600), .real(foldedBefore ?? now)
                ).int ?? 0)
            return foldedBefore != nil ? (counts.folded == 0 ? nil : counts) : (counts.isEmpty ? nil : counts)
        }
        guard let counts else { return false }
        return try database.write { db in
            try db.run(
                """
                INSERT INTO mail_outbox (event_key, user_id, kind, language, detail, token, state, next_attempt_at,
                    created_at)
                SELECT ?, u.id, 'digest', COALESCE(u.language, 'en'), ?, ?, 'queued', 0, ? FROM users u WHERE u.id = ?
                ON CONFLICT (event_key, user_id) DO NOTHING
                """, .text(key), .text(counts.detail), .text(token), .real(now), .integer(userID)) == 1
        }
    }

    /// Whether the period's row is made already (on any node).
    static func exists(_ db: some SQLConnection, key: String, userID: Int64) throws -> Bool {
        try db.scalar(
            "SELECT count(*) FROM mail_outbox WHERE event_key = ? AND user_id = ?", .text(key), .integer(userID)
        ).int ?? 0 > 0
    }

    /// Reports waiting for a first look, the age of the oldest, replies from reporters, delivery failures:
    /// the dashboard's own counts (`SQLReviewStore.counts`).
    static func waitingCounts(_ db: some SQLConnection, now: Double) throws -> DigestCounts {
        guard
            let row = try db.query(
                """
                SELECT
                  sum(CASE WHEN r.review_state = 'received' AND r.replied_at IS NULL THEN 1 ELSE 0 END),
                  min(CASE WHEN r.review_state = 'received' THEN r.submitted_at END),
                  sum(CASE WHEN r.review_state = 'received' AND r.replied_at IS NOT NULL THEN 1 ELSE 0 END),
                  sum(CASE WHEN r.state = 'needs_attention' THEN 1 ELSE 0 END)
                FROM reports r WHERE \(ReviewSQL.reviewable) AND r.state != 'deleting' AND r.discarded_at IS NULL
                """
            ).first
        else { return DigestCounts() }
        let oldest = try row.double(1)
        return DigestCounts(
            waiting: Int(try row.int(0) ?? 0), oldestAge: oldest.map { Int(max(0, now - $0)) } ?? 0,
            replies: Int(try row.int(2) ?? 0), failures: Int(try row.int(3) ?? 0))
    }

    func queueAdminNote(userID: Int64, key: String, olderThan: Double, now: Double, token: String) throws -> Bool {
        if try database.read({ db in try Self.exists(db, key: key, userID: userID) }) { return false }
        return try database.write { db in
            if try Self.exists(db, key: key, userID: userID) { return false }
            let cutoff = now - olderThan
            let failures =
                try db.scalar(
                    "SELECT count(*) FROM reports WHERE state = 'needs_attention' AND updated_at < ?", .real(cutoff)
                ).int ?? 0
            // A kiosk needs attention when it was enrolled, is not revoked, and has not been heard from.
            let kiosks =
                try db.scalar(
                    """
                    SELECT count(*) FROM kiosks
                    WHERE revoked_at IS NULL AND enrolled_at IS NOT NULL AND COALESCE(last_seen_at, enrolled_at) < ?
                    """, .real(cutoff)
                ).int ?? 0
            guard failures + kiosks > 0 else { return false }
            return try db.run(
                """
                INSERT INTO mail_outbox (event_key, user_id, kind, language, detail, token, state, next_attempt_at,
                    created_at)
                SELECT ?, u.id, 'admin_note', COALESCE(u.language, 'en'), ?, ?, 'queued', 0, ? FROM users u
                WHERE u.id = ?
                ON CONFLICT (event_key, user_id) DO NOTHING
                """, .text(key), .text("failures=\(failures);kiosks=\(kiosks)"), .text(token), .real(now),
                .integer(userID)) == 1
        }
    }

    func failedMail(limit: Int) throws -> [FailedMail] {
        try database.read { db in
            try db.query(
                """
                SELECT m.id, u.email, m.kind, m.created_at, m.attempts, m.last_reply
                FROM mail_outbox m JOIN users u ON u.id = m.user_id
                WHERE m.state = 'failed' ORDER BY m.id DESC LIMIT ?
                """, .integer(Int64(limit))
            ).map { row in
                FailedMail(
                    id: try row.int(0) ?? 0, email: try row.string(1) ?? "", kind: try row.string(2) ?? "",
                    createdAt: try row.double(3) ?? 0, attempts: Int(try row.int(4) ?? 0),
                    lastReply: try row.string(5) ?? "")
            }
        }
    }

    func retryFailed(id: Int64, now: Double) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE mail_outbox SET state = 'queued', attempts = 0, next_attempt_at = ?, last_reply = NULL
                WHERE id = ? AND state = 'failed'
                """, .real(now), .integer(id)) == 1
        }
    }
}
