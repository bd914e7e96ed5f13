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
        Migration(version: 7, name: "device reports", sql: deviceReports),
        Migration(version: 8, name: "list versions", sql: listVersions),
    ]

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
}
