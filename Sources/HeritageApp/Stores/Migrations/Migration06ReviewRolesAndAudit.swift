/// Migration 6: review: roles, review state, audit.
enum Migration06ReviewRolesAndAudit: AppMigration {
    static let version = 6
    static let name = "review: roles, review state, audit"

    /// docs/REVIEW.md: roles granted in the store (`har users`, an admin's page), keyed by
    /// e-mail so that someone is granted before their first sign-in; the review state and its
    /// bookkeeping on `reports`, apart from the delivery `state`; the report's origin (a kiosk's
    /// reports); and the audit log, which triggers keep append-only.
    static let sqlite = """
        CREATE TABLE user_roles (
            email TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
            role TEXT NOT NULL CHECK (role IN ('coordinator', 'admin')),
            granted_by TEXT NOT NULL,
            granted_at REAL NOT NULL
        ) STRICT;

        ALTER TABLE reports ADD COLUMN origin TEXT NOT NULL DEFAULT 'volunteer'
            CHECK (origin IN ('volunteer', 'kiosk'));
        ALTER TABLE reports ADD COLUMN review_state TEXT NOT NULL DEFAULT 'received'
            CHECK (review_state IN ('received', 'approved', 'needs_info', 'rejected', 'duplicate'));
        ALTER TABLE reports ADD COLUMN review_reason TEXT;
        -- What the coordinator wrote to the reporter (needs info, rejected).
        ALTER TABLE reports ADD COLUMN review_message TEXT;
        ALTER TABLE reports ADD COLUMN duplicate_of INTEGER;
        ALTER TABLE reports ADD COLUMN reviewed_by TEXT;
        ALTER TABLE reports ADD COLUMN reviewed_at REAL;
        -- When the reporter sent a report in needs info back.
        ALTER TABLE reports ADD COLUMN replied_at REAL;
        -- A coordinator's claim, lapsing at claimed_until.
        ALTER TABLE reports ADD COLUMN claimed_by TEXT;
        ALTER TABLE reports ADD COLUMN claimed_until REAL;
        -- Discarded by a coordinator: in the trash, restorable for 30 days, then cancelled.
        ALTER TABLE reports ADD COLUMN discarded_at REAL;
        ALTER TABLE reports ADD COLUMN discarded_by TEXT;
        CREATE INDEX reports_review ON reports(review_state, submitted_at DESC, id DESC);
        CREATE INDEX reports_submitted ON reports(submitted_at DESC, id DESC);
        -- The dashboard's counters read only this index (a fifth of the time of reading the table at 100,000).
        CREATE INDEX reports_name ON reports(coalesce(name, ''), id);
        CREATE INDEX reports_review_counts ON reports(review_state, state, discarded_at, replied_at, submitted_at);

        CREATE TABLE review_audit (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            report_id INTEGER,
            subject TEXT,
            before TEXT,
            after TEXT,
            detail TEXT
        ) STRICT;
        CREATE INDEX review_audit_report ON review_audit(report_id, id);
        CREATE INDEX review_audit_actor ON review_audit(actor, id);
        CREATE TRIGGER review_audit_no_update BEFORE UPDATE ON review_audit
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER review_audit_no_delete BEFORE DELETE ON review_audit
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        """

    /// `sqlite`: roles by e-mail (unique whatever the letters' case, as SQLite's
    /// `COLLATE NOCASE` made them), the review columns of `reports`, and the audit log, kept append-only by
    /// a trigger function that refuses every UPDATE and DELETE (and TRUNCATE) of its rows.
    static let postgres = """
        CREATE TABLE user_roles (
            email text PRIMARY KEY NOT NULL,
            role text NOT NULL CHECK (role IN ('coordinator', 'admin')),
            granted_by text NOT NULL,
            granted_at double precision NOT NULL
        );
        CREATE UNIQUE INDEX user_roles_email ON user_roles (lower(email));

        ALTER TABLE reports ADD COLUMN origin text NOT NULL DEFAULT 'volunteer'
            CHECK (origin IN ('volunteer', 'kiosk'));
        ALTER TABLE reports ADD COLUMN review_state text NOT NULL DEFAULT 'received'
            CHECK (review_state IN ('received', 'approved', 'needs_info', 'rejected', 'duplicate'));
        ALTER TABLE reports ADD COLUMN review_reason text;
        -- What the coordinator wrote to the reporter (needs info, rejected).
        ALTER TABLE reports ADD COLUMN review_message text;
        ALTER TABLE reports ADD COLUMN duplicate_of bigint;
        ALTER TABLE reports ADD COLUMN reviewed_by text;
        ALTER TABLE reports ADD COLUMN reviewed_at double precision;
        -- When the reporter sent a report in needs info back.
        ALTER TABLE reports ADD COLUMN replied_at double precision;
        -- A coordinator's claim, lapsing at claimed_until.
        ALTER TABLE reports ADD COLUMN claimed_by text;
        ALTER TABLE reports ADD COLUMN claimed_until double precision;
        -- Discarded by a coordinator: in the trash, restorable for 30 days, then cancelled.
        ALTER TABLE reports ADD COLUMN discarded_at double precision;
        ALTER TABLE reports ADD COLUMN discarded_by text;
        CREATE INDEX reports_review ON reports(review_state, submitted_at DESC, id DESC);
        CREATE INDEX reports_submitted ON reports(submitted_at DESC, id DESC);
        CREATE INDEX reports_name ON reports(coalesce(name, ''), id);
        CREATE INDEX reports_review_counts ON reports(review_state, state, discarded_at, replied_at, submitted_at);

        CREATE TABLE review_audit (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            at double precision NOT NULL,
            actor text NOT NULL,
            action text NOT NULL,
            report_id bigint,
            subject text,
            before text,
            after text,
            detail text
        );
        CREATE INDEX review_audit_report ON review_audit(report_id, id);
        CREATE INDEX review_audit_actor ON review_audit(actor, id);
        CREATE FUNCTION review_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'restrict_violation';
        END
        $$;
        CREATE TRIGGER review_audit_no_change BEFORE UPDATE OR DELETE ON review_audit
        FOR EACH ROW EXECUTE FUNCTION review_audit_append_only();
        CREATE TRIGGER review_audit_no_truncate BEFORE TRUNCATE ON review_audit
        FOR EACH STATEMENT EXECUTE FUNCTION review_audit_append_only();
        """
}
