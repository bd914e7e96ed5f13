import SQLiteStorage

/// The worker's leases on reports, for several nodes draining one outbox: a node claims due
/// reports for a while (`lease_holder`, `lease_epoch`, `lease_until` on the report's row, migration 10;
/// not `claimed_by`, which is a coordinator's claim since migration 6); every transition it makes
/// afterwards is fenced by its node and epoch (`OutboxStore`'s `lease:`), so that a node whose lease
/// lapsed (paused, cut off) changes nothing once another node has taken the report over.
///
/// With them, what the worker shares across nodes instead of keeping per process: gates that one node
/// at a time holds (`worker_gates`: the create gate of a user's identical reports, the photo sweep's
/// turn) and the platform sessions refused (`refused_sessions`).
protocol OutboxLeases: Sendable {
    /// Claims at most `limit` due reports whose lease is free or lapsed at `now`, until `now + duration`;
    /// each claim raises the report's epoch. Two nodes never get the same report from one round. A
    /// report handed back because its create gate was held (`handBack`) is passed over while that
    /// gate's holder still holds its lease.
    func claim(node: String, now: Double, duration: Double, limit: Int) throws -> [Lease]
    /// Extends a lease still held (same node and epoch, not lapsed); false when it was lost.
    func renew(_ lease: Lease, now: Double, duration: Double) throws -> Bool
    /// Gives a lease up (the report stays as it is); false when it was no longer held.
    func release(_ lease: Lease) throws -> Bool
    /// Gives a lease up because the report's create gate `gate` is held by another report: nothing
    /// else changes (no attempt counted, no backoff), and the claim passes the report over until that
    /// gate is free or its holder's lease lapsed. False when the lease was no longer held.
    func handBack(_ lease: Lease, gate: String) throws -> Bool
    /// Whether the lease is still this node's at `now`.
    func holds(_ lease: Lease, now: Double) throws -> Bool
    /// At the worker's start: the leases and gates a former run of this node left (after a crash) are
    /// given up, so its reports resume at once instead of after their lease. On SQLite (one process per
    /// data folder) every lease and gate is a former run's. Returns how many leases were given up.
    func releaseLeft(node: String) throws -> Int

    /// Whether other processes may use the database too (PostgreSQL); on SQLite one process has it
    /// alone, and an in-process gate is enough.
    var isShared: Bool { get }
    /// Takes the gate `key` for `holder` until `until`, when no one holds it or its holder's time
    /// passed at `now`; false when another holds it.
    func takeGate(_ key: String, holder: String, now: Double, until: Double) throws -> Bool
    /// Frees the gate `key` when `holder` has it.
    func releaseGate(_ key: String, holder: String) throws
    /// Takes the create gate `key` for the report of `lease`, held as long as that lease (renewals
    /// included): when no one holds it, or its holder's lease lapsed or was given up at `now`; false
    /// when another report's live lease holds it.
    func takeCreateGate(_ key: String, lease: Lease, now: Double) throws -> Bool
    /// Frees the create gate `key` when the report of `lease` (same epoch) has it.
    func releaseCreateGate(_ key: String, lease: Lease) throws
    /// The fingerprint of the user's platform session the platform last refused (nil: none).
    func refusedSession(userID: Int64) throws -> String?
    /// The platform refused this session of the user: no node calls with it again.
    func recordRefusedSession(userID: Int64, fingerprint: String, now: Double) throws
}

/// A report claimed by a node, up to `until`; `epoch` fences it.
struct Lease: Sendable, Equatable, Hashable {
    var reportID: Int64
    var node: String
    var epoch: Int64
    var until: Double
    /// The node whose lease had lapsed (never released) when this claim took the report over, when it
    /// was another node and the report was mid-transfer (creating, created, uploading).
    var takenOverFrom: String? = nil
}

/// A transition fenced by a lease the node no longer holds: nothing was written.
struct LeaseLost: Error, CustomStringConvertible, Sendable {
    let reportID: Int64
    var description: String { "the lease on report \(reportID) was lost: another node has it" }
}

/// `OutboxLeases` on either backend, written once (`SQLBackend`): on PostgreSQL `FOR UPDATE SKIP
/// LOCKED` lets concurrent claimers pass each other's rows instead of waiting on them; on SQLite the
/// one writer claims alone. The epoch check in every later statement is the fence.
struct SQLOutboxLeases<Backend: SQLBackend>: OutboxLeases {
    let database: Backend

    /// What the worker takes up: active reports (retry_wait once due), deletions once due, not a queued
    /// report the review keeps back (the same as `OutboxStore.dueReports`).
    static var dueSQL: String { OutboxDue.sql }

    func claim(node: String, now: Double, duration: Double, limit: Int) throws -> [Lease] {
        guard limit > 0 else { return [] }
        return try database.claiming { db in
            let due = try db.query(
                """
                SELECT id, state, lease_holder, lease_until FROM reports
                WHERE \(Self.dueSQL) AND (lease_until IS NULL OR lease_until <= ?)
                  AND (create_gate IS NULL OR platform_report_id IS NOT NULL OR NOT EXISTS (
                      SELECT 1 FROM worker_gates g WHERE g.key = reports.create_gate AND \(Self.gateLiveSQL)))
                ORDER BY COALESCE(submitted_at, creation_time), id
                LIMIT ? \(Backend.skipLocked)
                """, OutboxDue.values(now: now) + [.real(now), .real(now), .real(now), .integer(Int64(limit))])
            return try due.compactMap { row -> Lease? in
                guard let id = try row.int("id") else { return nil }
                let epoch = try db.scalar(
                    """
                    UPDATE reports SET lease_holder = ?, lease_epoch = lease_epoch + 1, lease_until = ?
                    WHERE id = ? RETURNING lease_epoch
                    """, .text(node), .real(now + duration), .integer(id)
                ).int
                guard let epoch else { return nil }
                let previous = try row.string("lease_holder")
                let lapsed = try row.double("lease_until") != nil
                let midTransfer = ["creating", "created", "uploading"].contains(try row.string("state") ?? "")
                return Lease(
                    reportID: id, node: node, epoch: epoch, until: now + duration,
                    takenOverFrom: lapsed && midTransfer && previous != node ? previous : nil)
            }
        }
    }

    func renew(_ lease: Lease, now: Double, duration: Double) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE reports SET lease_until = ?
                WHERE id = ? AND lease_holder = ? AND lease_epoch = ? AND lease_until > ?
                """, .real(now + duration), .integer(lease.reportID), .text(lease.node), .integer(lease.epoch),
                .real(now)) == 1
        }
    }

    func release(_ lease: Lease) throws -> Bool {
        try database.write { db in
            try db.run(
                "UPDATE reports SET lease_until = NULL WHERE id = ? AND lease_holder = ? AND lease_epoch = ?",
                .integer(lease.reportID), .text(lease.node), .integer(lease.epoch)) == 1
        }
    }

    func handBack(_ lease: Lease, gate: String) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE reports SET lease_until = NULL, create_gate = ?
                WHERE id = ? AND lease_holder = ? AND lease_epoch = ?
                """, .text(gate), .integer(lease.reportID), .text(lease.node), .integer(lease.epoch)) == 1
        }
    }

    func holds(_ lease: Lease, now: Double) throws -> Bool {
        try database.read { db in
            try db.scalar(
                "SELECT count(*) FROM reports WHERE id = ? AND lease_holder = ? AND lease_epoch = ? AND lease_until > ?",
                .integer(lease.reportID), .text(lease.node), .integer(lease.epoch), .real(now)
            ).int == 1
        }
    }

    func releaseLeft(node: String) throws -> Int {
        try database.write { db in
            if Backend.isExclusive {
                try db.run("DELETE FROM worker_gates")
                return try db.run("UPDATE reports SET lease_until = NULL WHERE lease_until IS NOT NULL")
            }
            // The gates this node holds: named by it, or by it and a report (the create gate).
            try db.run(
                "DELETE FROM worker_gates WHERE holder = ? OR substr(holder, 1, CAST(? AS integer)) = ?", .text(node),
                .integer(Int64(node.utf8.count + 1)), .text(node + " "))
            return try db.run(
                "UPDATE reports SET lease_until = NULL WHERE lease_until IS NOT NULL AND lease_holder = ?", .text(node))
        }
    }

    var isShared: Bool { !Backend.isExclusive }

    func takeGate(_ key: String, holder: String, now: Double, until: Double) throws -> Bool {
        try database.write { db in
            try db.run("DELETE FROM worker_gates WHERE key = ? AND until <= ?", .text(key), .real(now))
            return try db.run(
                "INSERT INTO worker_gates (key, holder, until) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
                .text(key), .text(holder), .real(until)) == 1
        }
    }

    func releaseGate(_ key: String, holder: String) throws {
        _ = try database.write { db in
            try db.run("DELETE FROM worker_gates WHERE key = ? AND holder = ?", .text(key), .text(holder))
        }
    }

    /// Whether the gate `g` is held at the time given twice as parameters: a create gate while the
    /// lease it was taken with (its report and epoch) has not lapsed nor been given up; another gate
    /// until its `until`.
    static var gateLiveSQL: String {
        """
        ((g.report_id IS NULL AND g.until > ?)
         OR EXISTS (SELECT 1 FROM reports h
                    WHERE h.id = g.report_id AND h.lease_epoch = g.epoch AND h.lease_until > ?))
        """
    }

    func takeCreateGate(_ key: String, lease: Lease, now: Double) throws -> Bool {
        try database.write { db in
            try db.run(
                "DELETE FROM worker_gates WHERE key = ? AND NOT EXISTS (SELECT 1 FROM worker_gates g WHERE g.key = ? AND \(Self.gateLiveSQL))",
                .text(key), .text(key), .real(now), .real(now))
            return try db.run(
                """
                INSERT INTO worker_gates (key, holder, until, report_id, epoch) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (key) DO NOTHING
                """, .text(key), .text("\(lease.node) \(lease.reportID)"), .real(lease.until), .integer(lease.reportID),
                .integer(lease.epoch)) == 1
        }
    }

    func releaseCreateGate(_ key: String, lease: Lease) throws {
        _ = try database.write { db in
            try db.run(
                "DELETE FROM worker_gates WHERE key = ? AND report_id = ? AND epoch = ?", .text(key),
                .integer(lease.reportID), .integer(lease.epoch))
        }
    }

    func refusedSession(userID: Int64) throws -> String? {
        try database.read { db in
            try db.query("SELECT fingerprint FROM refused_sessions WHERE user_id = ?", .integer(userID)).first?
                .string("fingerprint")
        }
    }

    func recordRefusedSession(userID: Int64, fingerprint: String, now: Double) throws {
        _ = try database.write { db in
            try db.run(
                """
                INSERT INTO refused_sessions (user_id, fingerprint, refused_at) VALUES (?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET fingerprint = excluded.fingerprint, refused_at = excluded.refused_at
                """, .integer(userID), .text(fingerprint), .real(now))
        }
    }

    /// The fence of a transition, run first in its transaction: true when `lease` (if any) is still
    /// held at `now`. It writes the row it checks (to itself), so on PostgreSQL it takes the row's lock:
    /// a claim taking the report over waits for this transaction, or this one fails and runs again and
    /// then sees the new epoch.
    static func fence(_ db: Backend.Connection, _ lease: Lease?, now: Double) throws {
        guard let lease else { return }
        let held = try db.run(
            """
            UPDATE reports SET lease_until = lease_until
            WHERE id = ? AND lease_holder = ? AND lease_epoch = ? AND lease_until > ?
            """, .integer(lease.reportID), .text(lease.node), .integer(lease.epoch), .real(now))
        if held != 1 { throw LeaseLost(reportID: lease.reportID) }
    }
}

typealias PostgresOutboxLeases = SQLOutboxLeases<PostgresDatabase>
typealias SQLiteOutboxLeases = SQLOutboxLeases<SQLiteDatabase>
