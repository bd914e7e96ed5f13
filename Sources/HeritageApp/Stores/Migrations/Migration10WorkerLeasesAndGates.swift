/// Migration 10: worker leases, gates, refused sessions.
enum Migration10WorkerLeasesAndGates: AppMigration {
    static let version = 10
    static let name = "worker leases, gates, refused sessions"

    /// docs/SCALE-OUT.md: several nodes drain one outbox. The worker's lease on a report
    /// (`OutboxLeases`): the node holding it, the epoch every claim raises (the fence of the node's
    /// transitions) and when it lapses. `worker_gates`: named turns that one node at a time holds until
    /// `until` (the create gate of a user's identical reports, the photo sweep's turn).
    /// `refused_sessions`: the platform session last refused per user, as a fingerprint (never the
    /// session itself), so that no node calls with it again.
    static let sqlite = """
        ALTER TABLE reports ADD COLUMN lease_holder TEXT;
        ALTER TABLE reports ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE reports ADD COLUMN lease_until REAL;
        CREATE TABLE worker_gates (
            key TEXT PRIMARY KEY NOT NULL,
            holder TEXT NOT NULL,
            until REAL NOT NULL
        ) STRICT;
        CREATE TABLE refused_sessions (
            user_id INTEGER PRIMARY KEY NOT NULL,
            fingerprint TEXT NOT NULL,
            refused_at REAL NOT NULL
        ) STRICT;
        """

    /// `sqlite`: the worker's leases, gates and refused sessions.
    static let postgres = """
        ALTER TABLE reports ADD COLUMN lease_holder text;
        ALTER TABLE reports ADD COLUMN lease_epoch bigint NOT NULL DEFAULT 0;
        ALTER TABLE reports ADD COLUMN lease_until double precision;
        CREATE TABLE worker_gates (
            key text PRIMARY KEY NOT NULL,
            holder text NOT NULL,
            until double precision NOT NULL
        );
        CREATE TABLE refused_sessions (
            user_id bigint PRIMARY KEY NOT NULL,
            fingerprint text NOT NULL,
            refused_at double precision NOT NULL
        );
        """
}
