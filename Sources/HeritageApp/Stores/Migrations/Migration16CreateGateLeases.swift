/// Migration 16: create gates held by leases.
enum Migration16CreateGateLeases: AppMigration {
    static let version = 16
    static let name = "create gates held by leases"

    /// A create gate (`worker_gates`) is held by the lease of the report that took it
    /// (`report_id`, `epoch`): it lives as long as that lease, renewals included, and lapses with it.
    /// `reports.create_gate`: the gate a report found held by another report when a node handed it
    /// back; the claim passes it over while that gate's holder lives (`OutboxLeases.claim`).
    static let sqlite = """
        ALTER TABLE worker_gates ADD COLUMN report_id INTEGER;
        ALTER TABLE worker_gates ADD COLUMN epoch INTEGER;
        ALTER TABLE reports ADD COLUMN create_gate TEXT;
        """

    /// `sqlite` in PostgreSQL's words.
    static let postgres = """
        ALTER TABLE worker_gates ADD COLUMN report_id bigint;
        ALTER TABLE worker_gates ADD COLUMN epoch bigint;
        ALTER TABLE reports ADD COLUMN create_gate text;
        """
}
