import SQLiteStorage

/// The application's schema in PostgreSQL's dialect: the same tables, columns and version numbers as
/// `AppMigrations` (SQLite's), so that a database of either kind at version N holds the same data.
/// A migration added to `AppMigrations` gets its PostgreSQL twin here, one entry with the same
/// version. Times are Unix seconds and coordinates degrees, both `double precision` (never `real`,
/// which is 32 bits in PostgreSQL); integers are `bigint`; row ids are identity columns that a copy
/// from SQLite may set (`BY DEFAULT`), and `users.email` is unique whatever its letters' case, as
/// SQLite's `COLLATE NOCASE` made it.
enum PostgresAppMigrations {
    static let all: [Migration] = [
        Migration(version: 1, name: Migration01.name, sql: Migration01.postgres),
        Migration(version: 2, name: Migration02.name, sql: Migration02.postgres),
        Migration(version: 3, name: Migration03.name, sql: Migration03.postgres),
        Migration(version: 4, name: Migration04.name, sql: Migration04.postgres),
        Migration(version: 5, name: Migration05.name, sql: Migration05.postgres),
        Migration(version: 6, name: Migration06.name, sql: Migration06.postgres),
        Migration(version: 7, name: Migration07.name, sql: Migration07.postgres),
        Migration(version: 8, name: Migration08.name, sql: Migration08.postgres),
        Migration(version: 9, name: Migration09.name, sql: Migration09.postgres),
        Migration(version: 10, name: Migration10.name, sql: Migration10.postgres),
        Migration(version: 11, name: Migration11.name, sql: Migration11.postgres),
        Migration(version: 12, name: Migration12.name, sql: Migration12.postgres),
        Migration(version: 13, name: Migration13.name, sql: Migration13.postgres),
        Migration(version: 14, name: Migration14.name, sql: Migration14.postgres),
        Migration(version: 15, name: Migration15.name, sql: Migration15.postgres),
        Migration(version: 16, name: Migration16.name, sql: Migration16.postgres),
        Migration(version: 17, name: Migration17.name, sql: Migration17.postgres),
        Migration(version: 18, name: Migration18.name, sql: Migration18.postgres),
        Migration(version: 19, name: Migration19.name, sql: Migration19.postgres),
        Migration(version: 20, name: Migration20.name, sql: Migration20.postgres),
        Migration(version: 21, name: Migration21.name, sql: Migration21.postgres),
        Migration(version: 22, name: Migration22.name, sql: Migration22.postgres),
        Migration(version: 23, name: Migration23.name, sql: Migration23.postgres),
        Migration(version: 24, name: Migration24.name, sql: Migration24.postgres),
        Migration(version: 25, name: Migration25.name, sql: Migration25.postgres),
        Migration(version: 26, name: Migration26.name, sql: Migration26.postgres),
    ]
}
