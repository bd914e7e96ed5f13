import PlatformClient
import SQLiteStorage

/// The review's decisions, claims, the reporter's side and the trash (`ReviewStore`).
extension SQLReviewStore {
    // MARK: Actions

    func decide(_ decision: ReviewDecision, id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db in try Self.decide(db, decision, id: id, actor: actor, now: now) }
    }

    /// Each report its own compare-and-set, 500 to a transaction (one commit for many, and the writer
    /// free again between them).
    func decideAll(_ decision: ReviewDecision, ids: [Int64], actor: String, now: Double) throws -> [ReviewOutcome] {
        var outcomes: [ReviewOutcome] = []
        outcomes.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 500, ids.count)]
            outcomes += try database.write { db in
                try chunk.map { try Self.decide(db, decision, id: $0, actor: actor, now: now) }
            }
            start += chunk.count
        }
        return outcomes
    }

    static func decide(_ db: Backend.Connection, _ decision: ReviewDecision, id: Int64, actor: String, now: Double)
        throws
        -> ReviewOutcome
    {
        guard
            let current = try db.query(
                "SELECT review_state, claimed_by, claimed_until FROM reports r WHERE r.id = ? AND \(ReviewSQL.reviewable)",
                .integer(id)
            ).first, let state = try current.string("review_state")
        else { return .notFound }
        if let holder = try current.string("claimed_by"), holder.lowercased() != actor.lowercased(),
            let until = try current.double("claimed_until"), until > now
        {
            return try Self.lastAction(db, reportID: id, actions: [ReviewAction.claim.rawValue])
                ?? .conflict(actor: holder, action: ReviewAction.claim.rawValue, at: until)
        }
        guard decision.from.map(\.rawValue).contains(state) else {
            return try Self.lastAction(db, reportID: id, actions: ReviewSQL.decisionActions)
                ?? .conflict(actor: "?", action: state, at: 0)
        }
        if let from = ReviewState(rawValue: state),
            let refused = try ReviewDelivery.refusal(db, id: id, from: from, to: decision.to)
        {
            return refused
        }
        if let duplicateOf = decision.duplicateOf {
            let exists = try db.scalar(
                "SELECT count(*) FROM reports r WHERE r.id = ? AND r.id != ? AND \(ReviewSQL.reviewable)",
                .integer(duplicateOf), .integer(id)
            ).int
            guard exists == 1 else { return .notFound }
        }
        let changed = try db.run(
            """
            UPDATE reports SET review_state = ?, review_reason = ?, review_message = ?, duplicate_of = ?,
                reviewed_by = ?, reviewed_at = ?, claimed_by = NULL, claimed_until = NULL,
                replied_at = CASE WHEN CAST(? AS text) = 'received' THEN replied_at ELSE NULL END
            WHERE id = ? AND review_state = ?
            """, .text(decision.to.rawValue), SQLValue(decision.reason), SQLValue(decision.message),
            decision.duplicateOf.map(SQLValue.integer) ?? .null, .text(actor), .real(now),
            .text(decision.to.rawValue), .integer(id), .text(state))
        guard changed == 1 else { throw StoreError(.invariant, "review state changed inside its transaction") }
        var detail = [decision.reason, decision.message].compactMap { $0 }.joined(separator: ": ")
        if let from = ReviewState(rawValue: state),
            let delivery = try ReviewDelivery.apply(db, id: id, from: from, to: decision.to, now: now)
        {
            detail += (detail.isEmpty ? "" : "; ") + delivery
        }
        if let duplicateOf = decision.duplicateOf {
            detail =
                "duplicate of #\(duplicateOf)"
                + (detail.hasSuffix("platform") ? "; to be withdrawn from the platform" : "")
        }
        try Self.insertAudit(
            db,
            AuditEntry(
                at: now, actor: actor, action: decision.action, reportID: id, before: state,
                after: decision.to.rawValue, detail: detail.isEmpty ? nil : detail))
        try queueReporterMail(db, decision, id: id, now: now)
        return .done
    }

    /// The reporter's mail about this decision, in the decision's own transaction: a question carries the
    /// coordinator's message; an approval or a rejection only its public reason code, never a note.
    static func queueReporterMail(_ db: Backend.Connection, _ decision: ReviewDecision, id: Int64, now: Double)
        throws
    {
        guard let kind = MailKind(decidedState: decision.to) else { return }
        try MailOutboxSQL.queueForReporter(
            db, kind: kind.rawValue, reportID: id, event: "\(decision.action):\(id):\(now)",
            detail: kind.detail(of: decision), token: Crypto.randomHex(bytes: 16), now: now)
    }

    /// The latest of these actions on a report, as a conflict to tell the loser.
    static func lastAction(_ db: Backend.Connection, reportID: Int64, actions: [String]) throws -> ReviewOutcome? {
        let marks = Array(repeating: "?", count: actions.count).joined(separator: ", ")
        guard
            let row = try db.query(
                """
                SELECT actor, action, at FROM review_audit WHERE report_id = ? AND action IN (\(marks))
                ORDER BY id DESC LIMIT 1
                """, [.integer(reportID)] + actions.map(SQLValue.text)
            ).first
        else { return nil }
        return .conflict(
            actor: try row.string("actor") ?? "?", action: try row.string("action") ?? "?",
            at: try row.double("at") ?? 0)
    }

    func claim(id: Int64, actor: String, now: Double, until: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let current = try db.query(
                    "SELECT claimed_by, claimed_until FROM reports r WHERE r.id = ? AND \(ReviewSQL.reviewable)",
                    .integer(id)
                ).first
            else { return .notFound }
            let holder = try current.string("claimed_by")
            if let holder, holder.lowercased() != actor.lowercased(), let end = try current.double("claimed_until"),
                end > now
            {
                return try Self.lastAction(db, reportID: id, actions: [ReviewAction.claim.rawValue])
                    ?? .conflict(actor: holder, action: ReviewAction.claim.rawValue, at: end)
            }
            _ = try db.run(
                "UPDATE reports SET claimed_by = ?, claimed_until = ? WHERE id = ?", .text(actor), .real(until),
                .integer(id))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: actor, action: ReviewAction.claim.rawValue, reportID: id, before: holder,
                    after: actor))
            return .done
        }
    }

    func releaseClaim(id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let current = try db.query(
                    "SELECT claimed_by, claimed_until FROM reports r WHERE r.id = ? AND \(ReviewSQL.reviewable)",
                    .integer(id)
                ).first
            else { return .notFound }
            guard let holder = try current.string("claimed_by") else { return .done }
            if holder.lowercased() != actor.lowercased(), let end = try current.double("claimed_until"), end > now {
                return try Self.lastAction(db, reportID: id, actions: [ReviewAction.claim.rawValue])
                    ?? .conflict(actor: holder, action: ReviewAction.claim.rawValue, at: end)
            }
            _ = try db.run("UPDATE reports SET claimed_by = NULL, claimed_until = NULL WHERE id = ?", .integer(id))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: actor, action: ReviewAction.releaseClaim.rawValue, reportID: id, before: holder))
            return .done
        }
    }

    func reporterView(localID: String, userID: Int64) throws -> ReporterView? {
        try database.read { db in
            try db.query(
                """
                SELECT review_state, review_message, review_reason, name, state FROM reports r
                WHERE r.local_id = ? AND r.user_id = ? AND \(ReviewSQL.reviewable)
                """, .text(localID), .integer(userID)
            ).first.map(Self.reporterView)
        }
    }

    func reviewStates(userID: Int64) throws -> [String: ReporterView] {
        // One statement: its own snapshot, without BEGIN and COMMIT around it.
        try database.readStatement { db in
            var states: [String: ReporterView] = [:]
            for row in try db.query(ReviewSQL.reporterStates, .integer(userID)) {
                states[try row.string("local_id") ?? ""] = try Self.reporterView(row)
            }
            return states
        }
    }

    static func reporterView(_ row: some SQLRowReading) throws -> ReporterView {
        ReporterView(
            review: try row.string("review_state") ?? "", message: try row.string("review_message"),
            reason: try row.string("review_reason"), name: try row.string("name"),
            delivery: try row.string("state") ?? "")
    }

    func discard(id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let row = try db.query(
                    "SELECT state, discarded_at FROM reports r WHERE r.id = ? AND \(ReviewSQL.reviewable)", .integer(id)
                ).first, let state = try row.string("state")
            else { return .notFound }
            if try row.double("discarded_at") != nil {
                return try Self.lastAction(db, reportID: id, actions: [ReviewAction.discard.rawValue])
                    ?? .conflict(actor: "?", action: ReviewAction.discard.rawValue, at: 0)
            }
            let from = ReviewAction.discardable.map(\.rawValue)
            guard from.contains(state) else { return .notApplicable(state: state) }
            let places = from.map { _ in "?" }.joined(separator: ", ")
            _ = try db.run(
                """
                UPDATE reports SET discarded_at = ?, discarded_by = ?, claimed_by = NULL, claimed_until = NULL
                WHERE id = ? AND discarded_at IS NULL AND state IN (\(places))
                """, [.real(now), .text(actor), .integer(id)] + from.map { .text($0) })
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: actor, action: ReviewAction.discard.rawValue, reportID: id, before: state))
            return .done
        }
    }

    func restore(id: Int64, actor: String, now: Double, since: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let row = try db.query(
                    "SELECT state, discarded_at FROM reports r WHERE r.id = ? AND \(ReviewSQL.reviewable)", .integer(id)
                ).first
            else { return .notFound }
            guard let discardedAt = try row.double("discarded_at") else {
                return try Self.lastAction(db, reportID: id, actions: ["restore"])
                    ?? .notApplicable(state: try row.string("state") ?? "")
            }
            guard discardedAt > since else { return .notApplicable(state: "cancelled") }
            _ = try db.run(
                "UPDATE reports SET discarded_at = NULL, discarded_by = NULL WHERE id = ? AND discarded_at IS NOT NULL",
                .integer(id))
            try Self.insertAudit(
                db, AuditEntry(at: now, actor: actor, action: "restore", reportID: id, after: try row.string("state")))
            return .done
        }
    }

    func purgeTrash(before cutoff: Double, now: Double) throws -> [String] {
        try database.write { db -> [String] in
            let ids = try db.query(
                """
                SELECT id FROM reports WHERE discarded_at IS NOT NULL AND discarded_at <= ?
                  AND state IN ('queued', 'held', 'needs_attention')
                """, .real(cutoff)
            ).compactMap { try $0.int("id") }
            var photos: [String] = []
            for id in ids {
                photos += try db.query("SELECT local_id FROM photos WHERE report_id = ?", .integer(id)).compactMap {
                    try $0.string("local_id")
                }
                _ = try db.run(
                    "UPDATE reports SET state = 'cancelled', updated_at = ? WHERE id = ? AND discarded_at IS NOT NULL",
                    .real(now), .integer(id))
                try Self.insertAudit(
                    db, AuditEntry(at: now, actor: "system", action: "purge", reportID: id, after: "cancelled"))
            }
            return photos
        }
    }

    func reply(localID: String, userID: Int64, fields: ReportFields?, note: String, now: Double) throws -> Bool {
        try database.write { db -> Bool in
            guard
                let row = try db.query(
                    """
                    SELECT r.id, u.email, r.name, r.designation, r.condition, r.occupancy, r.priority_category,
                        r.owner_type, r.grade, CASE WHEN \(ReplyRoom.openSQL) THEN 1 ELSE 0 END AS open
                    FROM reports r JOIN users u ON u.id = r.user_id
                    WHERE r.local_id = ? AND r.user_id = ? AND r.review_state = 'needs_info'
                    """, .text(localID), .integer(userID)
                ).first, let id = try row.int("id")
            else { return false }
            var detail = note.isEmpty ? [] : [note]
            // The fields change only while the platform has nothing of the report yet.
            if let fields, try row.int("open") == 1 {
                let before = ReportFields(
                    name: try row.string("name") ?? "", designation: try row.string("designation") ?? "",
                    condition: try row.string("condition") ?? "", occupancy: try row.string("occupancy") ?? "",
                    priorityCategory: try row.string("priority_category") ?? "",
                    ownerType: try row.string("owner_type") ?? "", grade: try row.string("grade") ?? "")
                detail += ReplyRoom.changes(from: before, to: fields)
                _ = try db.run(
                    """
                    UPDATE reports SET name = ?, designation = ?, condition = ?, occupancy = ?, priority_category = ?,
                        owner_type = ?, grade = ?
                    WHERE id = ?
                    """, .text(fields.name), .text(fields.designation), .text(fields.condition),
                    .text(fields.occupancy), .text(fields.priorityCategory), .text(fields.ownerType),
                    .text(fields.grade), .integer(id))
            }
            _ = try db.run(
                """
                UPDATE reports SET review_state = 'received', replied_at = ?, updated_at = ?
                WHERE id = ? AND review_state = 'needs_info'
                """, .real(now), .real(now), .integer(id))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: try row.string("email") ?? "?", action: "reporter_reply", reportID: id,
                    before: ReviewState.needsInfo.rawValue, after: ReviewState.received.rawValue,
                    detail: detail.isEmpty ? nil : detail.joined(separator: "\n")))
            return true
        }
    }

    func replyRoom(localID: String, userID: Int64) throws -> ReplyRoom? {
        try database.read { db in
            try db.query(
                """
                SELECT r.id, (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS photo_count FROM reports r
                WHERE r.local_id = ? AND r.user_id = ? AND \(ReplyRoom.openSQL)
                """, .text(localID), .integer(userID)
            ).first.map { ReplyRoom(id: try $0.int("id") ?? 0, photoCount: Int(try $0.int("photo_count") ?? 0)) }
        }
    }

    func addReplyPhoto(_ photo: NewPhoto, localID: String, userID: Int64, now: Double) throws -> PhotoAddResult {
        try database.write { db -> PhotoAddResult in
            guard
                let row = try db.query(
                    """
                    SELECT r.id, u.email, (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS photo_count,
                        (SELECT coalesce(max(position), -1) + 1 FROM photos p WHERE p.report_id = r.id) AS next
                    FROM reports r JOIN users u ON u.id = r.user_id
                    WHERE r.local_id = ? AND r.user_id = ? AND \(ReplyRoom.openSQL)
                    """, .text(localID), .integer(userID)
                ).first, let id = try row.int("id")
            else { return .gone }
            guard try row.int("photo_count") ?? 0 < Int64(Draft.maximumPhotos) else { return .full }
            let position = Int(try row.int("next") ?? 0)
            _ = try db.run(
                """
                INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, width, height,
                    latitude, longitude, accuracy, altitude, captured_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(id), .text(photo.localID), .integer(Int64(position)), .text(photo.contentType),
                    .integer(Int64(photo.size)), .text(photo.sha256), .integer(Int64(photo.width)),
                    .integer(Int64(photo.height)), SQLValue(photo.fix?.latitude), SQLValue(photo.fix?.longitude),
                    SQLValue(photo.fix?.accuracy), SQLValue(photo.fix?.altitude), .text(photo.capturedAt), .real(now),
                ])
            _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", .real(now), .integer(id))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: try row.string("email") ?? "?", action: "reporter_photo", reportID: id,
                    after: photo.localID))
            return .added(position: position)
        }
    }
}
