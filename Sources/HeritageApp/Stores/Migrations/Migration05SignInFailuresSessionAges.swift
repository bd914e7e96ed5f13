/// Migration 5: sign-in failures, session ages.
enum Migration05SignInFailuresSessionAges: AppMigration {
    static let version = 5
    static let name = "sign-in failures, session ages"

    /// Failed sign-ins per key (client address, e-mail, or both), for the progressive delay of
    /// `SignInLimiter`; held here so a restart forgets nothing. Web sessions learn what the session
    /// list of the settings shows (the browser and the client address at sign-in).
    static let sqlite = """
        CREATE TABLE signin_failures (
            key TEXT PRIMARY KEY NOT NULL,
            failures INTEGER NOT NULL,
            last_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX signin_failures_time ON signin_failures(last_at);
        ALTER TABLE web_sessions ADD COLUMN user_agent TEXT;
        ALTER TABLE web_sessions ADD COLUMN client_address TEXT;
        """

    /// `sqlite`: failed sign-ins per key, and what the
    /// settings' session list shows of each web session.
    static let postgres = """
        CREATE TABLE signin_failures (
            key text PRIMARY KEY NOT NULL,
            failures bigint NOT NULL,
            last_at double precision NOT NULL
        );
        CREATE INDEX signin_failures_time ON signin_failures(last_at);
        ALTER TABLE web_sessions ADD COLUMN user_agent text;
        ALTER TABLE web_sessions ADD COLUMN client_address text;
        """
}
