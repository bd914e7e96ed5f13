import PostgresStorage
import Storage

/// The worker's leases on reports, for several nodes draining one outbox (issue 13): a node claims due
/// reports for a while (`lease_holder`, `lease_epoch`, `lease_until` on the report's row; not
/// `claimed_by`, which is a coordinator's claim since migration 6); every change it makes afterwards is fenced by its node and epoch, so that a node whose lease lapsed (paused, cut off)
/// changes nothing once another node has taken the report over.
///
/// Not wired into the worker yet, and its migration (`PostgresOutboxLeases.migrationSQL`) is not in
/// `PostgresAppMigrations.all`: it awaits a version number of its own in both dialects.
protocol OutboxLeases: Sendable {
    /// Claims at most `limit` due reports whose lease is free or lapsed at `now`, until `now + duration`;
    /// each claim raises the report's epoch. Two nodes never get the same report from one round.
    func claim(node: String, now: Double, duration: Double, limit: Int) throws -> [Lease]
    /// Extends a lease still held (same node and epoch, not lapsed); false when it was lost.
    func renew(_ lease: Lease, now: Double, duration: Double) throws -> Bool
    /// Gives a lease up (the report stays as it is); false when it was no longer held.
    func release(_ lease: Lease) throws -> Bool
    /// Whether the lease is still this node's at `now`.
    func holds(_ lease: Lease, now: Double) throws -> Bool
}

/// A report claimed by a node, up to `until`; `epoch` fences it.
struct Lease: Sendable, Equatable, Hashable {
    var reportID: Int64
    var node: String
    var epoch: Int64
    var until: Double
}

/// `OutboxLeases` on PostgreSQL: `FOR UPDATE SKIP LOCKED` lets concurrent claimers pass each other's rows
/// instead of waiting on them, and the epoch check in every later statement is the fence.
struct PostgresOutboxLeases: OutboxLeases {
    let database: PostgresDatabase

    static let migrationSQL = """
        ALTER TABLE reports ADD COLUMN lease_holder text;
        ALTER TABLE reports ADD COLUMN lease_epoch bigint NOT NULL DEFAULT 0;
        ALTER TABLE reports ADD COLUMN lease_until double precision;
        """

    func claim(node: String, now: Double, duration: Double, limit: Int) throws -> [Lease] {
        guard limit > 0 else { return [] }
        return try PostgresDatabase.mapped {
            try database.pool.withConnection { db in
                // READ COMMITTED with row locks: SKIP LOCKED is the point (SERIALIZABLE would turn the
                // claimers' overlapping reads into retries).
                try db.transaction(.readCommitted) {
                    try db.query(
                        """
                        UPDATE reports SET lease_holder = ?, lease_epoch = lease_epoch + 1, lease_until = ?
                        WHERE id IN (
                            SELECT id FROM reports
                            WHERE (state IN ('queued', 'creating', 'created', 'uploading')
                                   OR (state IN ('retry_wait', 'deleting') AND COALESCE(next_attempt_at, 0) <= ?))
                              AND (lease_until IS NULL OR lease_until <= ?)
                            ORDER BY COALESCE(submitted_at, creation_time), id
                            LIMIT ?
                            FOR UPDATE SKIP LOCKED)
                        RETURNING id, lease_epoch, lease_until
                        """, .text(node), .real(now + duration), .real(now), .real(now), .integer(Int64(limit))
                    ).map { row in
                        Lease(
                            reportID: try row.int(0) ?? 0, node: node, epoch: try row.int(1) ?? 0,
                            until: try row.double(2) ?? 0)
                    }
                }
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

    func holds(_ lease: Lease, now: Double) throws -> Bool {
        try database.read { db in
            try db.scalar(
                "SELECT count(*) FROM reports WHERE id = ? AND lease_holder = ? AND lease_epoch = ? AND lease_until > ?",
                .integer(lease.reportID), .text(lease.node), .integer(lease.epoch), .real(now)
            ).int == 1
        }
    }
}
