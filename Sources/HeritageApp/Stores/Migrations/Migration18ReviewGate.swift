/// Migration 18: what the review gate needs to hold (docs/REVIEW.md, "The review gate"), in both
/// dialects side by side.
///
/// - A role belongs to a platform account (`user_roles.account_id`); a grant to an e-mail nobody has
///   signed in with here yet is pending (no account), and a first sign-in the platform does not call
///   verified is recorded beside it (`first_signin_*`) for an administrator to confirm.
/// - A report the review stops (rejected, duplicate) that the platform has or may have is withdrawn:
///   `withdrawing` until the worker has removed it there, then `withdrawn`. `withdraw_after` is the end
///   of the undo window (the worker starts no withdrawal before it), `withdraw_from` the delivery state
///   an undo returns to, `withdrawal_started_at` the moment the worker began (no undo after it).
/// - A kiosk's reports belong to a users row of its own (`users.kiosk_id`, `kiosks.reports_user_id`),
///   which nobody can sign in as (its e-mail `kiosk:N` is no address); the account they go up with is
///   still the one linked to the kiosk (`kiosks.user_id`).
enum Migration18ReviewGate: AppMigration {
    static let version = 18
    static let name = "the review gate"

    /// The grants already bound to an account that signed in here keep it; the others wait.
    /// The reports' CHECK on `state` gains two states: SQLite keeps a table's constraints only in its
    /// schema text, and documents changing that text with `writable_schema` for changes that leave the
    /// rows as they are ("ALTER TABLE", section "Making other kinds of table schema changes"); a
    /// wider list is one. `RESET` reloads the schema on this connection; the `ALTER TABLE`s after it
    /// change the schema cookie, so that every other connection reloads it too.
    static let sqlite = """
        PRAGMA writable_schema = ON;
        UPDATE sqlite_schema SET sql = replace(sql,
            '''held'', ''deleting'', ''cancelled'', ''deleted''))',
            '''held'', ''deleting'', ''cancelled'', ''deleted'', ''withdrawing'', ''withdrawn''))')
        WHERE type = 'table' AND name = 'reports';
        PRAGMA writable_schema = RESET;

        ALTER TABLE reports ADD COLUMN withdraw_after REAL;
        ALTER TABLE reports ADD COLUMN withdraw_from TEXT;
        ALTER TABLE reports ADD COLUMN withdrawal_started_at REAL;
        UPDATE reports SET state = 'withdrawing', withdraw_after = 0, withdraw_from = 'stored'
        WHERE state = 'deleting' AND submitted_at IS NOT NULL AND review_state IN ('rejected', 'duplicate');
        UPDATE reports SET state = 'withdrawn'
        WHERE state = 'deleted' AND submitted_at IS NOT NULL AND review_state IN ('rejected', 'duplicate');

        ALTER TABLE user_roles ADD COLUMN account_id TEXT;
        ALTER TABLE user_roles ADD COLUMN first_signin_account TEXT;
        ALTER TABLE user_roles ADD COLUMN first_signin_at REAL;
        ALTER TABLE user_roles ADD COLUMN first_signin_address TEXT;
        UPDATE user_roles SET account_id = (SELECT u.account_id FROM users u WHERE u.email = user_roles.email);
        CREATE UNIQUE INDEX user_roles_account ON user_roles(account_id) WHERE account_id IS NOT NULL;

        ALTER TABLE users ADD COLUMN kiosk_id INTEGER;
        ALTER TABLE kiosks ADD COLUMN reports_user_id INTEGER REFERENCES users(id);
        INSERT INTO users (email, kiosk_id, created_at, updated_at)
        SELECT 'kiosk:' || id, id, created_at, created_at FROM kiosks;
        UPDATE kiosks SET reports_user_id = (SELECT u.id FROM users u WHERE u.kiosk_id = kiosks.id);
        UPDATE reports SET user_id = (SELECT k.reports_user_id FROM kiosks k WHERE k.id = reports.kiosk_id)
        WHERE kiosk_id IS NOT NULL;
        """

    /// The same in PostgreSQL's words, where a CHECK is a constraint of its own.
    static let postgres = """
        ALTER TABLE reports DROP CONSTRAINT reports_state_check;
        ALTER TABLE reports ADD CONSTRAINT reports_state_check CHECK (state IN (
            'draft', 'queued', 'creating', 'created', 'uploading', 'stored', 'retry_wait',
            'needs_attention', 'waiting_signin', 'held', 'deleting', 'cancelled', 'deleted',
            'withdrawing', 'withdrawn'));

        ALTER TABLE reports ADD COLUMN withdraw_after double precision;
        ALTER TABLE reports ADD COLUMN withdraw_from text;
        ALTER TABLE reports ADD COLUMN withdrawal_started_at double precision;
        UPDATE reports SET state = 'withdrawing', withdraw_after = 0, withdraw_from = 'stored'
        WHERE state = 'deleting' AND submitted_at IS NOT NULL AND review_state IN ('rejected', 'duplicate');
        UPDATE reports SET state = 'withdrawn'
        WHERE state = 'deleted' AND submitted_at IS NOT NULL AND review_state IN ('rejected', 'duplicate');

        ALTER TABLE user_roles ADD COLUMN account_id text;
        ALTER TABLE user_roles ADD COLUMN first_signin_account text;
        ALTER TABLE user_roles ADD COLUMN first_signin_at double precision;
        ALTER TABLE user_roles ADD COLUMN first_signin_address text;
        UPDATE user_roles SET account_id =
            (SELECT u.account_id FROM users u WHERE lower(u.email) = lower(user_roles.email));
        CREATE UNIQUE INDEX user_roles_account ON user_roles(account_id) WHERE account_id IS NOT NULL;

        ALTER TABLE users ADD COLUMN kiosk_id bigint;
        ALTER TABLE kiosks ADD COLUMN reports_user_id bigint REFERENCES users(id);
        INSERT INTO users (email, kiosk_id, created_at, updated_at)
        SELECT 'kiosk:' || id, id, created_at, created_at FROM kiosks;
        UPDATE kiosks SET reports_user_id = (SELECT u.id FROM users u WHERE u.kiosk_id = kiosks.id);
        UPDATE reports SET user_id = (SELECT k.reports_user_id FROM kiosks k WHERE k.id = reports.kiosk_id)
        WHERE kiosk_id IS NOT NULL;
        """
}
