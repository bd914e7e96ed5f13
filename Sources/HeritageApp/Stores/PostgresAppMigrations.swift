import Storage

/// The application's schema in PostgreSQL's dialect: the same tables, columns and version numbers as
/// `AppMigrations` (SQLite's), so that a database of either kind at version N holds the same data.
/// A migration added to `AppMigrations` gets its PostgreSQL twin here, one entry with the same
/// version. Times are Unix seconds and coordinates degrees, both `double precision` (never `real`,
/// which is 32 bits in PostgreSQL); integers are `bigint`; row ids are identity columns that a copy
/// from SQLite may set (`BY DEFAULT`), and `users.email` is unique whatever its letters' case, as
/// SQLite's `COLLATE NOCASE` made it.
enum PostgresAppMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "instance",
            sql: """
                CREATE TABLE instance (
                    key text PRIMARY KEY NOT NULL,
                    value text NOT NULL
                );
                INSERT INTO instance (key, value)
                VALUES ('created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
                """),
        Migration(version: 2, name: "users, sessions, reports, photos", sql: usersSessionsReportsPhotos),
        Migration(version: 3, name: "expired drafts", sql: expiredDrafts),
        Migration(version: 4, name: "list indexes", sql: AppMigrations.listIndexes),
        Migration(version: 5, name: "sign-in failures, session ages", sql: signInFailuresSessionAges),
        Migration(version: 6, name: "review: roles, review state, audit", sql: review),
        Migration(version: 7, name: "device reports", sql: deviceReports),
        Migration(version: 8, name: "list versions", sql: listVersions),
        Migration(version: 9, name: "kiosks and receipts", sql: kiosks),
        Migration(version: 10, name: "worker leases, gates, refused sessions", sql: workerLeases),
        Migration(version: 11, name: "review search indexes", sql: reviewSearch),
        Migration(version: 12, name: "review notices index", sql: AppMigrations.reviewNoticesIndex),
        Migration(version: 13, name: "claimed receipts' list versions", sql: claimedListVersions),
        Migration(version: 14, name: "delivery attempts", sql: deliveryAttempts),
        Migration(version: 15, name: "listed reports index", sql: AppMigrations.listedReportsIndex),
        Migration(version: 16, name: "create gates held by leases", sql: createGates),
        Migration(version: 17, name: "review notices' list versions", sql: reviewListVersions),
        Migration(version: 18, name: "the review gate", sql: ReviewGateMigration.postgres),
        Migration(version: 19, name: "mail outbox", sql: MailOutboxMigration.postgres),
    ]

    /// `AppMigrations.reviewListVersions` in PostgreSQL's words: a report's review state, message,
    /// reason or submission changing bumps its owner's list version.
    static let reviewListVersions = """
        CREATE FUNCTION reports_review_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.review_state IS DISTINCT FROM OLD.review_state
                OR NEW.review_message IS DISTINCT FROM OLD.review_message
                OR NEW.review_reason IS DISTINCT FROM OLD.review_reason
                OR NEW.submitted_at IS DISTINCT FROM OLD.submitted_at
            THEN
                PERFORM list_version_bump(NEW.user_id);
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_review_list_version AFTER UPDATE ON reports
        FOR EACH ROW EXECUTE FUNCTION reports_review_list_version();
        """

    /// `AppMigrations.createGates` in PostgreSQL's words.
    static let createGates = """
        ALTER TABLE worker_gates ADD COLUMN report_id bigint;
        ALTER TABLE worker_gates ADD COLUMN epoch bigint;
        ALTER TABLE reports ADD COLUMN create_gate text;
        """

    /// `AppMigrations.claimedListVersions` in PostgreSQL's words: a claimed kiosk report's listed columns
    /// changing, or its receipt deleted, bump the claimant's list version.
    static let claimedListVersions = """
        CREATE FUNCTION reports_claimed_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            claimant bigint;
        BEGIN
            IF NEW.kiosk_id IS NOT NULL AND (NEW.state IS DISTINCT FROM OLD.state
                OR NEW.review_state IS DISTINCT FROM OLD.review_state
                OR NEW.review_reason IS DISTINCT FROM OLD.review_reason OR NEW.name IS DISTINCT FROM OLD.name
                OR NEW.latitude IS DISTINCT FROM OLD.latitude OR NEW.longitude IS DISTINCT FROM OLD.longitude
                OR NEW.submitted_at IS DISTINCT FROM OLD.submitted_at)
            THEN
                SELECT claimed_by INTO claimant FROM kiosk_receipts WHERE report_id = NEW.id;
                IF claimant IS NOT NULL THEN
                    PERFORM list_version_bump(claimant);
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_claimed_list_version AFTER UPDATE ON reports
        FOR EACH ROW EXECUTE FUNCTION reports_claimed_list_version();

        CREATE FUNCTION kiosk_receipts_claimed_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.claimed_by IS NOT NULL THEN
                UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.claimed_by;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER kiosk_receipts_claimed_list_version AFTER DELETE ON kiosk_receipts
        FOR EACH ROW EXECUTE FUNCTION kiosk_receipts_claimed_list_version();
        """

    /// `AppMigrations.kiosks` in PostgreSQL's words.
    static let kiosks = """
        CREATE TABLE kiosks (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            site_name text NOT NULL,
            latitude double precision,
            longitude double precision,
            radius_m double precision NOT NULL DEFAULT 100,
            languages text NOT NULL DEFAULT 'en,fr',
            idle_seconds bigint,
            user_id bigint REFERENCES users(id),
            created_by text NOT NULL,
            created_at double precision NOT NULL,
            revoked_at double precision,
            revoked_by text,
            enrol_token_hash bytea UNIQUE,
            enrol_expires_at double precision,
            credential_hash bytea UNIQUE,
            enrolled_at double precision,
            last_seen_at double precision,
            app_version text,
            visit_report_id bigint
        );
        ALTER TABLE reports ADD COLUMN kiosk_id bigint REFERENCES kiosks(id);
        CREATE INDEX reports_kiosk ON reports(kiosk_id, submitted_at);
        CREATE TABLE kiosk_receipts (
            code text PRIMARY KEY NOT NULL,
            report_id bigint NOT NULL UNIQUE REFERENCES reports(id) ON DELETE CASCADE,
            secret_hash bytea NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            claimed_by bigint REFERENCES users(id) ON DELETE SET NULL,
            claimed_at double precision
        );
        CREATE INDEX kiosk_receipts_claimed ON kiosk_receipts(claimed_by);
        """

    /// `AppMigrations.signInFailuresSessionAges` (issue 9): failed sign-ins per key, and what the
    /// settings' session list shows of each web session.
    static let signInFailuresSessionAges = """
        CREATE TABLE signin_failures (
            key text PRIMARY KEY NOT NULL,
            failures bigint NOT NULL,
            last_at double precision NOT NULL
        );
        CREATE INDEX signin_failures_time ON signin_failures(last_at);
        ALTER TABLE web_sessions ADD COLUMN user_agent text;
        ALTER TABLE web_sessions ADD COLUMN client_address text;
        """

    /// `AppMigrations.review` (issue 10): roles by e-mail (unique whatever the letters' case, as SQLite's
    /// `COLLATE NOCASE` made them), the review columns of `reports`, and the audit log, kept append-only by
    /// a trigger function that refuses every UPDATE and DELETE (and TRUNCATE) of its rows.
    static let review = """
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

    /// `AppMigrations.deviceReports` (issue 12): reports made in the browser's outbox.
    static let deviceReports = """
        ALTER TABLE reports ADD COLUMN from_device bigint NOT NULL DEFAULT 0;
        """

    /// `AppMigrations.listVersions` (issue 14): each user's list version, bumped in the transaction of
    /// every change to what the list shows. SQLite's six triggers become one plpgsql trigger function
    /// per table, run AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, with the same conditions: a listed
    /// report (not a draft) added or removed; a report's listed columns (state, name, address, time,
    /// error, platform id, owner) changing; a photo of a report that is not a draft added, removed, or
    /// changing state or report. `list_version_bump` is SQLite's `INSERT OR IGNORE … 0` then `+ 1` as
    /// one upsert; under the stores' SERIALIZABLE writes two nodes bumping one user's row at once are
    /// ordered by its row lock (or one is run again), never lost. A trigger's `WHEN` cannot hold a
    /// subquery in PostgreSQL, so every condition is tested inside the functions; a `NULL` condition
    /// (the photo's report gone) is false there as in SQLite's `WHEN`.
    static let listVersions = """
        CREATE TABLE list_versions (
            user_id bigint PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            version bigint NOT NULL
        );
        INSERT INTO list_versions (user_id, version) SELECT id, 1 FROM users;

        CREATE FUNCTION list_version_bump(target bigint) RETURNS void LANGUAGE sql AS $$
            INSERT INTO list_versions (user_id, version) VALUES ($1, 1)
            ON CONFLICT (user_id) DO UPDATE SET version = list_versions.version + 1;
        $$;

        CREATE FUNCTION reports_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                IF NEW.state <> 'draft' THEN
                    PERFORM list_version_bump(NEW.user_id);
                END IF;
            ELSIF TG_OP = 'DELETE' THEN
                IF OLD.state <> 'draft' THEN
                    PERFORM list_version_bump(OLD.user_id);
                END IF;
            ELSIF NEW.state IS DISTINCT FROM OLD.state OR NEW.name IS DISTINCT FROM OLD.name
                OR NEW.formatted_address IS DISTINCT FROM OLD.formatted_address
                OR NEW.creation_time IS DISTINCT FROM OLD.creation_time
                OR NEW.last_error IS DISTINCT FROM OLD.last_error
                OR NEW.platform_report_id IS DISTINCT FROM OLD.platform_report_id
                OR NEW.user_id IS DISTINCT FROM OLD.user_id
            THEN
                PERFORM list_version_bump(NEW.user_id);
                IF OLD.user_id IS DISTINCT FROM NEW.user_id THEN
                    UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.user_id;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_list_version AFTER INSERT OR UPDATE OR DELETE ON reports
        FOR EACH ROW EXECUTE FUNCTION reports_list_version();

        CREATE FUNCTION photos_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            owner bigint;
            previous_owner bigint;
        BEGIN
            IF TG_OP = 'DELETE' THEN
                IF (SELECT state FROM reports WHERE id = OLD.report_id) <> 'draft' THEN
                    SELECT user_id INTO owner FROM reports WHERE id = OLD.report_id;
                    PERFORM list_version_bump(owner);
                END IF;
            ELSIF TG_OP = 'UPDATE' AND NEW.state IS NOT DISTINCT FROM OLD.state
                AND NEW.report_id IS NOT DISTINCT FROM OLD.report_id
            THEN
                NULL;
            ELSIF (SELECT state FROM reports WHERE id = NEW.report_id) <> 'draft' THEN
                SELECT user_id INTO owner FROM reports WHERE id = NEW.report_id;
                PERFORM list_version_bump(owner);
                IF TG_OP = 'UPDATE' AND NEW.report_id IS DISTINCT FROM OLD.report_id THEN
                    SELECT user_id INTO previous_owner FROM reports WHERE id = OLD.report_id;
                    IF previous_owner IS DISTINCT FROM owner THEN
                        UPDATE list_versions SET version = version + 1 WHERE user_id = previous_owner;
                    END IF;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER photos_list_version AFTER INSERT OR UPDATE OR DELETE ON photos
        FOR EACH ROW EXECUTE FUNCTION photos_list_version();
        """

    static let expiredDrafts = """
        CREATE TABLE expired_drafts (
            local_id text PRIMARY KEY NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            photo_count bigint NOT NULL,
            expired_at double precision NOT NULL,
            announced_at double precision
        );
        CREATE INDEX expired_drafts_user ON expired_drafts(user_id, expired_at);
        CREATE INDEX expired_drafts_time ON expired_drafts(expired_at);
        """

    static let usersSessionsReportsPhotos = """
        CREATE TABLE users (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            email text NOT NULL,
            account_id text,
            fullname text,
            platform_session_id text,
            platform_session_expires_at double precision,
            gps_accuracy_m bigint NOT NULL DEFAULT 20 CHECK (gps_accuracy_m BETWEEN 1 AND 1000),
            gps_alert_seconds bigint NOT NULL DEFAULT 60 CHECK (gps_alert_seconds BETWEEN 5 AND 3600),
            wireless_only bigint NOT NULL DEFAULT 0 CHECK (wireless_only IN (0, 1)),
            created_at double precision NOT NULL,
            updated_at double precision NOT NULL
        );
        CREATE UNIQUE INDEX users_email ON users (lower(email));

        CREATE TABLE web_sessions (
            token_hash bytea PRIMARY KEY NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            csrf_token text NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            last_seen_at double precision NOT NULL
        );
        CREATE INDEX web_sessions_user ON web_sessions(user_id);
        CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);

        CREATE TABLE reports (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id bigint NOT NULL REFERENCES users(id),
            local_id text NOT NULL UNIQUE,
            platform_report_id text UNIQUE,
            state text NOT NULL CHECK (state IN (
                'draft', 'queued', 'creating', 'created', 'uploading', 'stored', 'retry_wait',
                'needs_attention', 'waiting_signin', 'held', 'deleting', 'cancelled', 'deleted')),
            name text,
            formatted_address text,
            designation text,
            condition text,
            occupancy text,
            priority_category text,
            owner_type text,
            grade text,
            latitude double precision,
            longitude double precision,
            accuracy double precision,
            altitude double precision,
            creation_time double precision NOT NULL,
            submitted_at double precision,
            attempts bigint NOT NULL DEFAULT 0,
            next_attempt_at double precision,
            last_error text,
            create_attempted_at double precision,
            submit_token text UNIQUE,
            updated_at double precision NOT NULL
        );
        CREATE INDEX reports_user_time ON reports(user_id, creation_time DESC);
        CREATE INDEX reports_state ON reports(state, next_attempt_at);

        CREATE TABLE photos (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            report_id bigint NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
            local_id text NOT NULL UNIQUE,
            position bigint NOT NULL,
            content_type text NOT NULL,
            size bigint NOT NULL,
            sha256 text NOT NULL,
            width bigint,
            height bigint,
            latitude double precision,
            longitude double precision,
            accuracy double precision,
            altitude double precision,
            captured_at text,
            state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'uploading', 'stored')),
            platform_photo_id text,
            stored_at double precision,
            created_at double precision NOT NULL
        );
        CREATE INDEX photos_report ON photos(report_id, position);
        """

    /// `AppMigrations.workerLeases` (issue 13): the worker's leases, gates and refused sessions.
    static let workerLeases = """
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

    /// `AppMigrations.deliveryAttempts` (issue 10): the worker's platform calls per report.
    static let deliveryAttempts = """
        CREATE TABLE delivery_attempts (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            report_id bigint NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
            at double precision NOT NULL,
            step text NOT NULL,
            outcome text NOT NULL CHECK (outcome IN ('ok', 'retry', 'failed')),
            http_status bigint,
            error text
        );
        CREATE INDEX delivery_attempts_report ON delivery_attempts(report_id, id);
        """
}
