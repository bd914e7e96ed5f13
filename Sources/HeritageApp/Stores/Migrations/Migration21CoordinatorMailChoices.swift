/// Migration 21: what coordinators and administrators choose to be told by mail (NOT-02), in both
/// dialects side by side.
///
/// - `users.coordinator_mail`: `none`, `each_kiosk` (a mail per kiosk report as it arrives), `each_all`
///   (per report of any origin), `hourly` or `daily` (a digest). Nothing until a coordinator chooses.
/// - `users.digest_hour` (0…23) and `users.time_zone` (a tz database name): when a daily digest goes, in
///   the coordinator's own time; the administrators' daily note goes at the same hour.
/// - `users.coordinator_mail_since`: when the choice was saved; a digest is due only for periods that
///   begin after it, so choosing a digest does not send one for the hour or day already under way.
/// - `users.mail_admin_note` (on by default): an administrator's daily note of old delivery failures and
///   kiosks needing attention; the one-click unsubscribe turns it off with the rest.
/// - `mail_outbox_kind`: the immediate mail's hourly cap counts a coordinator's rows of one kind in the
///   last hour.
enum Migration21CoordinatorMailChoices: AppMigration {
    static let version = 21
    static let name = "coordinators' mail choices"

    static let sqlite = """
        ALTER TABLE users ADD COLUMN coordinator_mail TEXT NOT NULL DEFAULT 'none'
            CHECK (coordinator_mail IN ('none', 'each_kiosk', 'each_all', 'hourly', 'daily'));
        ALTER TABLE users ADD COLUMN digest_hour INTEGER NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23);
        ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
        ALTER TABLE users ADD COLUMN coordinator_mail_since REAL NOT NULL DEFAULT 0;
        ALTER TABLE users ADD COLUMN mail_admin_note INTEGER NOT NULL DEFAULT 1 CHECK (mail_admin_note IN (0, 1));
        CREATE INDEX mail_outbox_kind ON mail_outbox(user_id, kind, created_at);
        """

    static let postgres = """
        ALTER TABLE users ADD COLUMN coordinator_mail text NOT NULL DEFAULT 'none'
            CHECK (coordinator_mail IN ('none', 'each_kiosk', 'each_all', 'hourly', 'daily'));
        ALTER TABLE users ADD COLUMN digest_hour bigint NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23);
        ALTER TABLE users ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';
        ALTER TABLE users ADD COLUMN coordinator_mail_since double precision NOT NULL DEFAULT 0;
        ALTER TABLE users ADD COLUMN mail_admin_note bigint NOT NULL DEFAULT 1 CHECK (mail_admin_note IN (0, 1));
        CREATE INDEX mail_outbox_kind ON mail_outbox(user_id, kind, created_at);
        """
}
