import Storage

/// The application's schema, one numbered migration per change, applied at start in order. Never edit
/// a migration that has shipped: add the next one. Times are Unix seconds, UTC, and coordinates degrees,
/// both in REAL columns: 64-bit IEEE doubles (DOUBLE PRECISION in PostgreSQL), declared in
/// `usersSessionsReportsPhotos` and `expiredDrafts`. A PostgreSQL backend has migrations of its own
/// giving the same tables.
enum AppMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "instance",
            sql: """
                CREATE TABLE instance (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                ) STRICT;
                INSERT INTO instance (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
                """),
        Migration(version: 2, name: "users, sessions, reports, photos", sql: usersSessionsReportsPhotos),
        Migration(version: 3, name: "expired drafts", sql: expiredDrafts),
        Migration(version: 4, name: "list indexes", sql: listIndexes),
        Migration(version: 5, name: "sign-in failures, session ages", sql: signInFailuresSessionAges),
        Migration(version: 6, name: "review: roles, review state, audit", sql: review),
        Migration(version: 7, name: "device reports", sql: deviceReports),
        Migration(version: 8, name: "list versions", sql: listVersions),
        Migration(version: 9, name: "kiosks and receipts", sql: kiosks),
        Migration(version: 10, name: "worker leases, gates, refused sessions", sql: workerLeases),
        Migration(version: 11, name: "review search indexes", sql: reviewSearch),
        Migration(version: 12, name: "review notices index", sql: reviewNoticesIndex),
        Migration(version: 13, name: "claimed receipts' list versions", sql: claimedListVersions),
        Migration(version: 14, name: "delivery attempts", sql: deliveryAttempts),
        Migration(version: 15, name: "listed reports index", sql: listedReportsIndex),
        Migration(version: 16, name: "create gates held by leases", sql: createGates),
        Migration(version: 17, name: "review notices' list versions", sql: reviewListVersions),
        Migration(version: 18, name: "the review gate", sql: ReviewGateMigration.sqlite),
        Migration(version: 19, name: "mail outbox", sql: MailOutboxMigration.sqlite),
    ]

    /// The list shows the owner's review notices (`ReviewStore.reviewStates`: a report's review state,
    /// message and reason, once submitted), which `listVersions`' triggers did not watch: a coordinator's
    /// decision or the reporter's reply left the list's ETag unchanged, and a 304 (or a kept page) went
    /// on showing the old notice. Bumped here, in the transaction of the change, whoever makes it.
    static let reviewListVersions = """
        CREATE TRIGGER reports_review_list_update AFTER UPDATE ON reports
        WHEN NEW.review_state IS NOT OLD.review_state OR NEW.review_message IS NOT OLD.review_message
            OR NEW.review_reason IS NOT OLD.review_reason OR NEW.submitted_at IS NOT OLD.submitted_at
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (NEW.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id = NEW.user_id;
        END;
        """

    /// The report list's page and its count (`ReportStore.page`, issue 14): a partial index of the
    /// listed reports only (its WHERE is the list's, term for term, so SQLite knows the query implies
    /// it and does not test the states again), holding every column the page shows, so the page reads
    /// 50 index entries instead of 50 wide `reports` rows, and the count walks index entries without
    /// comparing a state. The same SQL in PostgreSQL, where it is an ordinary partial index.
    static let listedReportsIndex = """
        CREATE INDEX reports_listed ON reports(user_id, creation_time DESC, id DESC, state, local_id,
            platform_report_id, name, formatted_address, last_error)
        WHERE state != 'draft' AND state != 'cancelled' AND state != 'deleted' AND state != 'deleting';
        """

    /// Issue 13: a create gate (`worker_gates`) is held by the lease of the report that took it
    /// (`report_id`, `epoch`): it lives as long as that lease, renewals included, and lapses with it.
    /// `reports.create_gate`: the gate a report found held by another report when a node handed it
    /// back; the claim passes it over while that gate's holder lives (`OutboxLeases.claim`).
    static let createGates = """
        ALTER TABLE worker_gates ADD COLUMN report_id INTEGER;
        ALTER TABLE worker_gates ADD COLUMN epoch INTEGER;
        ALTER TABLE reports ADD COLUMN create_gate TEXT;
        """

    /// The report list shows the reviewers' word on a user's reports (`ReviewStore.reviewStates`):
    /// those whose review state is not 'received'. Without this index the query read every one of the
    /// user's reports from the table to look at that column (a tenth of the list page's instructions
    /// with 200 reports, bench/instructions.sh); with it, only the reports it returns (issue 14).
    static let reviewNoticesIndex = """
        CREATE INDEX reports_review_notices ON reports(user_id) WHERE review_state != 'received';
        """

    /// A claimed kiosk report shows in its claimant's list (issue 11, `KioskStore.claimed`): what it shows
    /// of it (state, review state and public reason, name, location, time) changing, or its receipt going
    /// away with the report, moves the claimant's list version too, in the same transaction, as
    /// `listVersions` does for the owner. The claim itself moves it in `KioskStatements.claim`.
    static let claimedListVersions = """
        CREATE TRIGGER reports_claimed_list_update AFTER UPDATE ON reports
        WHEN NEW.kiosk_id IS NOT NULL AND (NEW.state IS NOT OLD.state OR NEW.review_state IS NOT OLD.review_state
            OR NEW.review_reason IS NOT OLD.review_reason OR NEW.name IS NOT OLD.name
            OR NEW.latitude IS NOT OLD.latitude OR NEW.longitude IS NOT OLD.longitude
            OR NEW.submitted_at IS NOT OLD.submitted_at)
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT claimed_by, 0 FROM kiosk_receipts WHERE report_id = NEW.id AND claimed_by IS NOT NULL;
            UPDATE list_versions SET version = version + 1
            WHERE user_id = (SELECT claimed_by FROM kiosk_receipts WHERE report_id = NEW.id);
        END;
        CREATE TRIGGER kiosk_receipts_claimed_delete AFTER DELETE ON kiosk_receipts
        WHEN OLD.claimed_by IS NOT NULL
        BEGIN
            UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.claimed_by;
        END;
        """

    /// Issue 11 (docs/KIOSK.md): kiosks at sites, each with at most one enrolled tablet (its device
    /// credential's SHA-256) and one pending enrolment token (SHA-256, ten minutes, spent once); the
    /// current visitor's draft; the platform account (`user_id`) its reports go up with. A kiosk's
    /// reports name it; their receipts keep the claim secret's SHA-256. `PostgresAppMigrations.kiosks` is
    /// the same in PostgreSQL's words.
    static let kiosks = """
        CREATE TABLE kiosks (
            id INTEGER PRIMARY KEY,
            site_name TEXT NOT NULL,
            latitude REAL,
            longitude REAL,
            radius_m REAL NOT NULL DEFAULT 100,
            languages TEXT NOT NULL DEFAULT 'en,fr',
            idle_seconds INTEGER,
            user_id INTEGER REFERENCES users(id),
            created_by TEXT NOT NULL,
            created_at REAL NOT NULL,
            revoked_at REAL,
            revoked_by TEXT,
            enrol_token_hash BLOB UNIQUE,
            enrol_expires_at REAL,
            credential_hash BLOB UNIQUE,
            enrolled_at REAL,
            last_seen_at REAL,
            app_version TEXT,
            visit_report_id INTEGER
        ) STRICT;
        ALTER TABLE reports ADD COLUMN kiosk_id INTEGER REFERENCES kiosks(id);
        CREATE INDEX reports_kiosk ON reports(kiosk_id, submitted_at);
        CREATE TABLE kiosk_receipts (
            code TEXT PRIMARY KEY NOT NULL,
            report_id INTEGER NOT NULL UNIQUE REFERENCES reports(id) ON DELETE CASCADE,
            secret_hash BLOB NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            claimed_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
            claimed_at REAL
        ) STRICT;
        CREATE INDEX kiosk_receipts_claimed ON kiosk_receipts(claimed_by);
        """

    /// Failed sign-ins per key (client address, e-mail, or both), for the progressive delay of
    /// `SignInLimiter`; held here so a restart forgets nothing. Web sessions learn what the session
    /// list of the settings shows (the browser and the client address at sign-in).
    static let signInFailuresSessionAges = """
        CREATE TABLE signin_failures (
            key TEXT PRIMARY KEY NOT NULL,
            failures INTEGER NOT NULL,
            last_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX signin_failures_time ON signin_failures(last_at);
        ALTER TABLE web_sessions ADD COLUMN user_agent TEXT;
        ALTER TABLE web_sessions ADD COLUMN client_address TEXT;
        """

    /// Issue 14: each user's list version, the strong ETag of their report list (`ReportStore.listVersion`).
    /// Bumped by triggers, so in the very transaction of every change to what the list shows, whoever
    /// makes it: the list's own writes, a submit, and every transition of the upload worker. A report's
    /// listed columns (state, name, address, time, error, platform id, owner) changing, a report added or
    /// removed, or a photo of a report that is no longer a draft changing state (the "n of m photos sent"
    /// of an uploading row) bumps it; a draft's own edits and the worker's bookkeeping (attempts, next
    /// try) do not. The PostgreSQL mirror needs the same triggers (a plpgsql function doing the two
    /// statements below, AFTER INSERT/UPDATE/DELETE FOR EACH ROW); docs/DATA.md says so.
    static let listVersions = """
        CREATE TABLE list_versions (
            user_id INTEGER PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            version INTEGER NOT NULL
        ) STRICT;
        INSERT INTO list_versions (user_id, version) SELECT id, 1 FROM users;
        CREATE TRIGGER reports_list_insert AFTER INSERT ON reports
        WHEN NEW.state != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (NEW.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id = NEW.user_id;
        END;
        CREATE TRIGGER reports_list_delete AFTER DELETE ON reports
        WHEN OLD.state != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (OLD.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.user_id;
        END;
        CREATE TRIGGER reports_list_update AFTER UPDATE ON reports
        WHEN NEW.state IS NOT OLD.state OR NEW.name IS NOT OLD.name
            OR NEW.formatted_address IS NOT OLD.formatted_address OR NEW.creation_time IS NOT OLD.creation_time
            OR NEW.last_error IS NOT OLD.last_error OR NEW.platform_report_id IS NOT OLD.platform_report_id
            OR NEW.user_id IS NOT OLD.user_id
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (NEW.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id IN (NEW.user_id, OLD.user_id);
        END;
        CREATE TRIGGER photos_list_insert AFTER INSERT ON photos
        WHEN (SELECT state FROM reports WHERE id = NEW.report_id) != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT user_id, 0 FROM reports WHERE id = NEW.report_id;
            UPDATE list_versions SET version = version + 1
            WHERE user_id = (SELECT user_id FROM reports WHERE id = NEW.report_id);
        END;
        CREATE TRIGGER photos_list_delete AFTER DELETE ON photos
        WHEN (SELECT state FROM reports WHERE id = OLD.report_id) != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT user_id, 0 FROM reports WHERE id = OLD.report_id;
            UPDATE list_versions SET version = version + 1
            WHERE user_id = (SELECT user_id FROM reports WHERE id = OLD.report_id);
        END;
        CREATE TRIGGER photos_list_update AFTER UPDATE ON photos
        WHEN (NEW.state IS NOT OLD.state OR NEW.report_id IS NOT OLD.report_id)
            AND (SELECT state FROM reports WHERE id = NEW.report_id) != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT user_id, 0 FROM reports WHERE id = NEW.report_id;
            UPDATE list_versions SET version = version + 1
            WHERE user_id IN (SELECT user_id FROM reports WHERE id IN (NEW.report_id, OLD.report_id));
        END;
        """

    /// Reports made on a device (issue 12): the browser's outbox names them with ids it made and sends
    /// them as drafts, filled then submitted. Such a draft is the device's: the creation page never takes
    /// it up as the user's open draft, and Cancel there does not remove it.
    static let deviceReports = """
        ALTER TABLE reports ADD COLUMN from_device INTEGER NOT NULL DEFAULT 0;
        """

    /// The report list's page query walks `reports_user_time` in its exact order (newest first, then
    /// by id) and reads the state from the index; each row's two photo counts read only
    /// `photos_report`. Measured on 200 reports, 50 shown: the page query took two thirds of the time
    /// it took with the first indexes, the count of listed reports three quarters.
    static let listIndexes = """
        DROP INDEX reports_user_time;
        CREATE INDEX reports_user_time ON reports(user_id, creation_time DESC, id DESC, state);
        DROP INDEX photos_report;
        CREATE INDEX photos_report ON photos(report_id, position, state);
        """

    /// Drafts the sweep removed (abandoned past the retention), remembered for a while so that the user
    /// who comes back to one is told why it is gone instead of finding an empty page. Looked up by the
    /// draft's id together with its user: another user's id reads as unknown.
    static let expiredDrafts = """
        CREATE TABLE expired_drafts (
            local_id TEXT PRIMARY KEY NOT NULL,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            photo_count INTEGER NOT NULL,
            expired_at REAL NOT NULL,
            -- When a page told the user (once is enough for a page that opens a new draft).
            announced_at REAL
        ) STRICT;
        CREATE INDEX expired_drafts_user ON expired_drafts(user_id, expired_at);
        CREATE INDEX expired_drafts_time ON expired_drafts(expired_at);
        """

    /// Users and their settings; our own web sessions; reports (drafts, the outbox, and copies of what
    /// the platform holds) and their photos. docs/DATA.md explains each state.
    static let usersSessionsReportsPhotos = """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            email TEXT NOT NULL UNIQUE COLLATE NOCASE,
            account_id TEXT,
            fullname TEXT,
            -- The platform's session: server-side only, never sent to a browser or logged.
            platform_session_id TEXT,
            platform_session_expires_at REAL,
            -- Settings (SET-01..03), kept per user so they follow the user to every device.
            gps_accuracy_m INTEGER NOT NULL DEFAULT 20 CHECK (gps_accuracy_m BETWEEN 1 AND 1000),
            gps_alert_seconds INTEGER NOT NULL DEFAULT 60 CHECK (gps_alert_seconds BETWEEN 5 AND 3600),
            wireless_only INTEGER NOT NULL DEFAULT 0 CHECK (wireless_only IN (0, 1)),
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        ) STRICT;

        CREATE TABLE web_sessions (
            -- SHA-256 of the cookie's 256 random bits: a copy of the database cannot sign anyone in.
            token_hash BLOB PRIMARY KEY NOT NULL,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            csrf_token TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            last_seen_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX web_sessions_user ON web_sessions(user_id);
        CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);

        CREATE TABLE reports (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id),
            -- A UUID made here: the Idempotency-Key of the create, and the id pages use before the
            -- platform has given one.
            local_id TEXT NOT NULL UNIQUE,
            platform_report_id TEXT UNIQUE,
            state TEXT NOT NULL CHECK (state IN (
                'draft', 'queued', 'creating', 'created', 'uploading', 'stored', 'retry_wait',
                'needs_attention', 'waiting_signin', 'held', 'deleting', 'cancelled', 'deleted')),
            name TEXT,
            formatted_address TEXT,
            designation TEXT,
            condition TEXT,
            occupancy TEXT,
            priority_category TEXT,
            owner_type TEXT,
            grade TEXT,
            latitude REAL,
            longitude REAL,
            accuracy REAL,
            altitude REAL,
            -- When the report was made (draft started, or the platform's creation_time).
            creation_time REAL NOT NULL,
            submitted_at REAL,
            -- The worker's bookkeeping (issue 5): attempts, next try, why it is stuck, and the
            -- moment of the last create attempt (reconciliation adopts a report created after it).
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL,
            last_error TEXT,
            create_attempted_at REAL,
            -- A replayed or double-clicked Submit carries the same token: one report, not two.
            submit_token TEXT UNIQUE,
            updated_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX reports_user_time ON reports(user_id, creation_time DESC);
        CREATE INDEX reports_state ON reports(state, next_attempt_at);

        CREATE TABLE photos (
            id INTEGER PRIMARY KEY,
            report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
            -- A UUID made here: the Idempotency-Key of the upload, and the photo's file name.
            local_id TEXT NOT NULL UNIQUE,
            position INTEGER NOT NULL,
            content_type TEXT NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            width INTEGER,
            height INTEGER,
            latitude REAL,
            longitude REAL,
            accuracy REAL,
            altitude REAL,
            captured_at TEXT,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'uploading', 'stored')),
            platform_photo_id TEXT,
            stored_at REAL,
            created_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX photos_report ON photos(report_id, position);
        """

    /// Issue 10 (docs/REVIEW.md): roles granted in the store (`har users`, an admin's page), keyed by
    /// e-mail so that someone is granted before their first sign-in; the review state and its
    /// bookkeeping on `reports`, apart from the delivery `state`; the report's origin (a kiosk's reports,
    /// issue 11); and the audit log, which triggers keep append-only.
    static let review = """
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

    /// Issue 13 (docs/SCALE-OUT.md): several nodes drain one outbox. The worker's lease on a report
    /// (`OutboxLeases`): the node holding it, the epoch every claim raises (the fence of the node's
    /// transitions) and when it lapses. `worker_gates`: named turns that one node at a time holds until
    /// `until` (the create gate of a user's identical reports, the photo sweep's turn).
    /// `refused_sessions`: the platform session last refused per user, as a fingerprint (never the
    /// session itself), so that no node calls with it again.
    static let workerLeases = """
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

    /// Issue 10 (REV-06): each platform call of the upload worker for a report, its step and outcome,
    /// written in the transaction of the transition that records it (`SQLDeliveryAttempts`), the last
    /// 50 per report kept. The error is `PlatformError`'s description: never a session or a secret.
    static let deliveryAttempts = """
        CREATE TABLE delivery_attempts (
            id INTEGER PRIMARY KEY,
            report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
            at REAL NOT NULL,
            step TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'retry', 'failed')),
            http_status INTEGER,
            error TEXT
        ) STRICT;
        CREATE INDEX delivery_attempts_report ON delivery_attempts(report_id, id);
        """
}
