import SQLiteStorage

/// One notice of the in-app notifications page: a row of the mail outbox, mailed or not.
struct NotificationRow: Sendable, Equatable {
    let id: Int64
    let kind: String
    let reportTitle: String?
    let reportLocalID: String?
    let detail: String?
    let createdAt: Double
    let isRead: Bool
    /// The receipt the user claimed at a kiosk, when the report is theirs that way.
    var receiptCode: String? = nil
}

/// The signed-in user's notices (the bell's count, the notifications page), read from `mail_outbox`, so
/// the app shows exactly what mail would say, with or without a mail server.
protocol NotificationStore: Sendable {
    func notifications(userID: Int64, limit: Int) throws -> [NotificationRow]
    func unreadCount(userID: Int64) throws -> Int
    /// Marks one of the user's notices read; returns it, nil when it is not theirs.
    func markRead(id: Int64, userID: Int64, now: Double) throws -> NotificationRow?
}

extension SQLMailOutboxStore: NotificationStore {
    private static var columns: String {
        """
        m.id, m.kind, r.name, r.local_id, m.detail, m.created_at, m.read_at,
        (SELECT c.code FROM kiosk_receipts c WHERE c.report_id = m.report_id AND c.claimed_by = m.user_id)
        """
    }

    private static func row(_ row: some SQLRowReading) throws -> NotificationRow {
        NotificationRow(
            id: try row.int(0) ?? 0, kind: try row.string(1) ?? "", reportTitle: try row.string(2),
            reportLocalID: try row.string(3), detail: try row.string(4), createdAt: try row.double(5) ?? 0,
            isRead: try row.double(6) != nil, receiptCode: try row.string(7))
    }

    func notifications(userID: Int64, limit: Int) throws -> [NotificationRow] {
        try database.read { db in
            try db.query(
                """
                SELECT \(Self.columns) FROM mail_outbox m LEFT JOIN reports r ON r.id = m.report_id
                WHERE m.user_id = ? ORDER BY m.id DESC LIMIT ?
                """, .integer(userID), .integer(Int64(limit))
            ).map(Self.row)
        }
    }

    func unreadCount(userID: Int64) throws -> Int {
        try database.readStatement { db in
            Int(
                try db.scalar(
                    "SELECT count(*) FROM mail_outbox WHERE user_id = ? AND read_at IS NULL", .integer(userID)
                ).int ?? 0)
        }
    }

    func markRead(id: Int64, userID: Int64, now: Double) throws -> NotificationRow? {
        try database.write { db in
            let changed = try db.run(
                "UPDATE mail_outbox SET read_at = ? WHERE id = ? AND user_id = ? AND read_at IS NULL",
                .real(now), .integer(id), .integer(userID))
            // The bell's count is on the report list, whose kept pages are keyed by the list's version.
            if changed == 1 {
                try db.run("UPDATE list_versions SET version = version + 1 WHERE user_id = ?", .integer(userID))
            }
            return try db.query(
                """
                SELECT \(Self.columns) FROM mail_outbox m LEFT JOIN reports r ON r.id = m.report_id
                WHERE m.id = ? AND m.user_id = ?
                """, .integer(id), .integer(userID)
            ).first.map(Self.row)
        }
    }
}
