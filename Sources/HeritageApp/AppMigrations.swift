import Storage

/// The application's schema, one numbered migration per change, applied at start in order. Never edit
/// a migration that has shipped: add the next one.
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
                """)
    ]
}
