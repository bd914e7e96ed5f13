import SQLiteStorage

/// The application's schema, one numbered migration per change, applied at start in order; each in its
/// own file under Migrations/, its SQLite and PostgreSQL statements side by side. Never edit
/// a migration that has shipped: add the next one. Times are Unix seconds, UTC, and coordinates degrees,
/// both in REAL columns: 64-bit IEEE doubles (DOUBLE PRECISION in PostgreSQL), declared in
/// `Migration02` and `Migration03`. A PostgreSQL backend has migrations of its own
/// giving the same tables.
enum AppMigrations {
    static let all: [Migration] = [
        Migration(version: 1, name: Migration01.name, sql: Migration01.sqlite),
        Migration(version: 2, name: Migration02.name, sql: Migration02.sqlite),
        Migration(version: 3, name: Migration03.name, sql: Migration03.sqlite),
        Migration(version: 4, name: Migration04.name, sql: Migration04.sqlite),
        Migration(version: 5, name: Migration05.name, sql: Migration05.sqlite),
        Migration(version: 6, name: Migration06.name, sql: Migration06.sqlite),
        Migration(version: 7, name: Migration07.name, sql: Migration07.sqlite),
        Migration(version: 8, name: Migration08.name, sql: Migration08.sqlite),
        Migration(version: 9, name: Migration09.name, sql: Migration09.sqlite),
        Migration(version: 10, name: Migration10.name, sql: Migration10.sqlite),
        Migration(version: 11, name: Migration11.name, sql: Migration11.sqlite),
        Migration(version: 12, name: Migration12.name, sql: Migration12.sqlite),
        Migration(version: 13, name: Migration13.name, sql: Migration13.sqlite),
        Migration(version: 14, name: Migration14.name, sql: Migration14.sqlite),
        Migration(version: 15, name: Migration15.name, sql: Migration15.sqlite),
        Migration(version: 16, name: Migration16.name, sql: Migration16.sqlite),
        Migration(version: 17, name: Migration17.name, sql: Migration17.sqlite),
        Migration(version: 18, name: Migration18.name, sql: Migration18.sqlite),
        Migration(version: 19, name: Migration19.name, sql: Migration19.sqlite),
        Migration(version: 20, name: Migration20.name, sql: Migration20.sqlite),
        Migration(version: 21, name: Migration21.name, sql: Migration21.sqlite),
        Migration(version: 22, name: Migration22.name, sql: Migration22.sqlite),
        Migration(version: 23, name: Migration23.name, sql: Migration23.sqlite),
        Migration(version: 24, name: Migration24.name, sql: Migration24.sqlite),
        Migration(version: 25, name: Migration25.name, sql: Migration25.sqlite),
        Migration(version: 26, name: Migration26.name, sql: Migration26.sqlite),
    ]
}
