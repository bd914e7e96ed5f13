import SQLiteStorage

/// The append-only audit log and the delivery attempts (`ReviewStore`).
extension SQLReviewStore {
    // MARK: Audit

    func appendAudit(_ entry: AuditEntry) throws {
        try database.write { db in try Self.insertAudit(db, entry) }
    }

    static func insertAudit(_ db: Backend.Connection, _ entry: AuditEntry) throws {
        _ = try db.run(
            """
            INSERT INTO review_audit (at, actor, action, report_id, subject, before, after, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, .real(entry.at), .text(entry.actor), .text(entry.action),
            entry.reportID.map(SQLValue.integer) ?? .null, SQLValue(entry.subject), SQLValue(entry.before),
            SQLValue(entry.after), SQLValue(entry.detail))
    }

    func deliveryAttempts(reportID: Int64, limit: Int) throws -> [DeliveryAttempt] {
        try database.read { try SQLDeliveryAttempts<Backend>.list($0, reportID: reportID, limit: limit) }
    }

    func audit(_ filter: AuditFilter, beforeID: Int64?, limit: Int) throws -> [AuditEntry] {
        var clauses = ["1 = 1"]
        var values: [SQLValue] = []
        if !filter.actor.isEmpty {
            clauses.append("lower(actor) LIKE ? ESCAPE '\\'")
            values.append(.text("%" + ReviewSQL.likeEscaped(filter.actor.lowercased()) + "%"))
        }
        if !filter.action.isEmpty {
            clauses.append("action = ?")
            values.append(.text(filter.action))
        }
        if let reportID = filter.reportID {
            clauses.append("report_id = ?")
            values.append(.integer(reportID))
        }
        if let beforeID {
            clauses.append("id < ?")
            values.append(.integer(beforeID))
        }
        values.append(.integer(Int64(max(0, limit))))
        return try database.read { db in
            try db.query(
                """
                SELECT id, at, actor, action, report_id, subject, before, after, detail FROM review_audit
                WHERE \(clauses.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?
                """, values
            ).map { row in
                AuditEntry(
                    id: try row.int("id") ?? 0, at: try row.double("at") ?? 0, actor: try row.string("actor") ?? "",
                    action: try row.string("action") ?? "", reportID: try row.int("report_id"),
                    subject: try row.string("subject"), before: try row.string("before"),
                    after: try row.string("after"), detail: try row.string("detail"))
            }
        }
    }
}
