/// Migration 3: expired drafts.
enum Migration03ExpiredDrafts: AppMigration {
    static let version = 3
    static let name = "expired drafts"

    /// Drafts the sweep removed (abandoned past the retention), remembered for a while so that the user
    /// who comes back to one is told why it is gone instead of finding an empty page. Looked up by the
    /// draft's id together with its user: another user's id reads as unknown.
    static let sqlite = """
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

    /// PostgreSQL.
    static let postgres = """
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
}
