import SQLiteStorage

/// One message of the mail outbox, claimed under a lease, with what its templates need.
struct MailJob: Sendable, Equatable {
    let id: Int64
    let kind: String
    let email: String
    let name: String?
    let language: String
    let reportTitle: String?
    let reportLocalID: String?
    let detail: String?
    /// Makes the Message-ID, the same on every attempt of this row.
    let token: String
    /// This message's one-click unsubscribe secret (it turns off this kind of mail only, once).
    let unsubscribeToken: String
    /// Attempts so far, this one included.
    let attempts: Int
    /// The receipt the recipient claimed at a kiosk, when the report is theirs that way: its page
    /// (`/r/{code}`) is where they follow it.
    var receiptCode: String? = nil
    /// `kiosk` or `volunteer`: where the report came from.
    var reportOrigin: String? = nil
}

/// The mail outbox's side for the worker and `/metrics` (migration 19).
protocol MailOutboxStore: Sendable {
    /// Marks up to `limit` due messages (queued and due, or sending under a lapsed lease) as this node's
    /// until `leaseUntil`, and returns them.
    func claimDue(owner: String, now: Double, leaseUntil: Double, limit: Int, newToken: () -> String) throws
        -> [MailJob]
    /// Records an attempt's end; false when the lease was lost (another node has the row now).
    func finish(id: Int64, owner: String, result: MailAttemptResult, now: Double) throws -> Bool
    /// Rows per state: queued, sending, sent, failed.
    func countsByState() throws -> [String: Int]
    /// Puts back in the queue what a former run left mid-send: every row in `sending` when one process
    /// has the database (SQLite: nobody else can hold a lease), else the rows leased to `owner`. Returns
    /// how many; each is sent again, with the same Message-ID.
    func releaseLeft(owner: String) throws -> Int
    /// Turns off the kind of mail the message of this unsubscribe secret was (and nothing else), clears
    /// the secret so that it works once, and writes an audit row, in one transaction. Nil for no such
    /// secret (unknown, or used already).
    func unsubscribe(token: String, now: Double) throws -> MailTopic?
    /// The language a user last used, for their mail.
    func recordLanguage(userID: Int64, language: String) throws
    /// Which mail a user wants: questions about their reports, decisions on them.
    func mailChoices(userID: Int64) throws -> MailChoices
    func saveMailChoices(_ choices: MailChoices, userID: Int64) throws
}

/// What one kind of message is about, as one click turns it off: a reporter's questions or decisions,
/// a coordinator's review mail (each report, digests), an administrator's daily note.
enum MailTopic: String, Sendable, Equatable {
    case questions, decisions, review
    case adminNote = "admin_note"

    /// The topic of an outbox row's `kind` (`MailKind.topic`); nil for a kind this version does not know.
    init?(kind: String) {
        guard let kind = MailKind(rawValue: kind) else { return nil }
        self = kind.topic
    }

    /// The assignment on `users` that turns it off.
    var turnOff: String {
        switch self {
        case .questions: "mail_needs_info = 0"
        case .decisions: "mail_decisions = 0"
        case .review: "coordinator_mail = 'none'"
        case .adminNote: "mail_admin_note = 0"
        }
    }
}

struct MailChoices: Sendable, Equatable {
    var needsInfo = true
    var decisions = false
}

enum MailAttemptResult: Sendable, Equatable {
    case sent(reply: String)
    case retry(at: Double, reply: String)
    case failed(reply: String)
}

/// Queues messages in the transaction of the change that causes them (the review's decisions).
enum MailOutboxSQL {
    /// The reporter's notice of a decision on their report: mailed when they want that kind (else
    /// `skipped`, still shown in the app); kiosks' own users have no address and get none, but the
    /// visitor who claimed the report's receipt gets the same notice, as its reporter. `event` names the
    /// decision; a second run of the same transaction queues nothing more.
    static func queueForReporter(
        _ db: some SQLConnection, kind: String, reportID: Int64, event: String, detail: String?, token: String,
        now: Double
    ) throws {
        // The reporter through the report's own users row, the claimer through the receipt's.
        let recipients = [
            ("JOIN users u ON u.id = r.user_id", token),
            ("JOIN kiosk_receipts c ON c.report_id = r.id JOIN users u ON u.id = c.claimed_by", token + "c"),
        ]
        for (join, rowToken) in recipients {
            try db.run(
                """
                INSERT INTO mail_outbox (event_key, user_id, kind, report_id, language, detail, token, state,
                    next_attempt_at, created_at)
                SELECT ?, u.id, ?, r.id, COALESCE(u.language, 'en'), ?, ?,
                    CASE WHEN (CASE WHEN CAST(? AS text) = 'needs_info' THEN u.mail_needs_info ELSE u.mail_decisions END)
                        = 1 THEN 'queued' ELSE 'skipped' END,
                    ?, ?
                FROM reports r \(join)
                WHERE r.id = ? AND u.email LIKE '%@%'
                ON CONFLICT (event_key, user_id) DO NOTHING
                """, .text(event), .text(kind), SQLValue(detail), .text(rowToken), .text(kind), .real(now), .real(now),
                .integer(reportID))
        }
    }
}

struct SQLMailOutboxStore<Backend: SQLBackend>: MailOutboxStore {
    let database: Backend

    func claimDue(owner: String, now: Double, leaseUntil: Double, limit: Int, newToken: () -> String) throws
        -> [MailJob]
    {
        try database.claiming { db in
            let ids = try db.query(
                """
                SELECT id FROM mail_outbox
                WHERE (state = 'queued' AND next_attempt_at <= ?) OR (state = 'sending' AND lease_until < ?)
                ORDER BY id LIMIT ? \(Backend.skipLocked)
                """, .real(now), .real(now), .integer(Int64(limit))
            ).compactMap { try $0.int(0) }
            return try ids.compactMap { id in try claim(db, id: id, owner: owner, until: leaseUntil, newToken) }
        }
    }

    private func claim(
        _ db: Backend.Connection, id: Int64, owner: String, until: Double, _ newToken: () -> String
    ) throws -> MailJob? {
        try db.run(
            """
            UPDATE mail_outbox SET state = 'sending', lease_owner = ?, lease_until = ?, attempts = attempts + 1
            WHERE id = ?
            """, .text(owner), .real(until), .integer(id))
        try db.run(
            "UPDATE mail_outbox SET unsubscribe_token = ? WHERE id = ? AND unsubscribe_token IS NULL",
            .text(newToken()), .integer(id))
        guard
            let row = try db.query(
                """
                SELECT m.kind, u.email, u.fullname, m.language, r.name, r.local_id, m.detail, m.token,
                    m.unsubscribe_token, m.attempts,
                    (SELECT c.code FROM kiosk_receipts c WHERE c.report_id = m.report_id AND c.claimed_by = m.user_id),
                    r.origin
                FROM mail_outbox m JOIN users u ON u.id = m.user_id LEFT JOIN reports r ON r.id = m.report_id
                WHERE m.id = ?
                """, .integer(id)
            ).first
        else { return nil }
        return MailJob(
            id: id, kind: try row.string(0) ?? "", email: try row.string(1) ?? "", name: try row.string(2),
            language: try row.string(3) ?? "en", reportTitle: try row.string(4), reportLocalID: try row.string(5),
            detail: try row.string(6), token: try row.string(7) ?? "", unsubscribeToken: try row.string(8) ?? "",
            attempts: Int(try row.int(9) ?? 1), receiptCode: try row.string(10),
            reportOrigin: try row.string(11))
    }

    func finish(id: Int64, owner: String, result: MailAttemptResult, now: Double) throws -> Bool {
        let (state, next, reply): (String, Double?, String) =
            switch result {
            case .sent(let reply): ("sent", nil, reply)
            case .retry(let at, let reply): ("queued", at, reply)
            case .failed(let reply): ("failed", nil, reply)
            }
        return try database.write { db in
            try db.run(
                """
                UPDATE mail_outbox SET state = ?, next_attempt_at = COALESCE(?, next_attempt_at), last_reply = ?,
                    sent_at = CASE WHEN CAST(? AS text) = 'sent' THEN ? ELSE sent_at END,
                    lease_owner = NULL, lease_until = NULL
                WHERE id = ? AND state = 'sending' AND lease_owner = ?
                """, .text(state), next.map(SQLValue.real) ?? .null, .text(String(reply.prefix(500))), .text(state),
                .real(now), .integer(id), .text(owner)) == 1
        }
    }

    func releaseLeft(owner: String) throws -> Int {
        try database.write { db in
            try db.run(
                """
                UPDATE mail_outbox SET state = 'queued', lease_owner = NULL, lease_until = NULL
                WHERE state = 'sending' AND (lease_owner = ? OR \(Backend.isExclusive ? "1 = 1" : "1 = 0"))
                """, .text(owner))
        }
    }

    func unsubscribe(token: String, now: Double) throws -> MailTopic? {
        try database.write { db -> MailTopic? in
            guard
                let row = try db.query(
                    """
                    SELECT m.id, m.kind, u.id, u.email FROM mail_outbox m JOIN users u ON u.id = m.user_id
                    WHERE m.unsubscribe_token = ?
                    """, .text(token)
                ).first, let topic = MailTopic(kind: try row.string(1) ?? "")
            else { return nil }
            try db.run("UPDATE mail_outbox SET unsubscribe_token = NULL WHERE id = ?", .integer(try row.int(0) ?? 0))
            try db.run("UPDATE users SET \(topic.turnOff) WHERE id = ?", .integer(try row.int(2) ?? 0))
            try db.run(
                """
                INSERT INTO review_audit (at, actor, action, report_id, subject, before, after, detail)
                VALUES (?, 'unsubscribe link', 'mail_unsubscribe', NULL, ?, 'on', 'off', ?)
                """, .real(now), .text(try row.string(3) ?? ""), .text(topic.rawValue))
            return topic
        }
    }

    func recordLanguage(userID: Int64, language: String) throws {
        try database.write { db in
            _ = try db.run(
                "UPDATE users SET language = ? WHERE id = ? AND (language IS NULL OR language != ?)",
                .text(language), .integer(userID), .text(language))
        }
    }

    func mailChoices(userID: Int64) throws -> MailChoices {
        try database.read { db in
            guard
                let row = try db.query(
                    "SELECT mail_needs_info, mail_decisions FROM users WHERE id = ?", .integer(userID)
                ).first
            else { return MailChoices() }
            return MailChoices(needsInfo: try row.int(0) == 1, decisions: try row.int(1) == 1)
        }
    }

    func saveMailChoices(_ choices: MailChoices, userID: Int64) throws {
        try database.write { db in
            _ = try db.run(
                "UPDATE users SET mail_needs_info = ?, mail_decisions = ? WHERE id = ?",
                .integer(choices.needsInfo ? 1 : 0), .integer(choices.decisions ? 1 : 0), .integer(userID))
        }
    }

    func countsByState() throws -> [String: Int] {
        try database.read { db in
            var counts: [String: Int] = [:]
            for row in try db.query("SELECT state, count(*) FROM mail_outbox GROUP BY state") {
                if let state = try row.string(0) { counts[state] = Int(try row.int(1) ?? 0) }
            }
            return counts
        }
    }
}
