/// Migration 1: instance.
enum Migration01Instance: AppMigration {
    static let version = 1
    static let name = "instance"

    /// SQLite.
    static let sqlite = """
        CREATE TABLE instance (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) STRICT;
        INSERT INTO instance (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
        """

    /// PostgreSQL.
    static let postgres = """
        CREATE TABLE instance (
            key text PRIMARY KEY NOT NULL,
            value text NOT NULL
        );
        INSERT INTO instance (key, value)
        VALUES ('created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
        """
}
