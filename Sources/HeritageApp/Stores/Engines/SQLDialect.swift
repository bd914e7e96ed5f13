// What the stores' SQL may ask of an engine, by name, as SQLKit's `SQLDialect` names what a database
// supports (learned from its protocol: `supportsReturning`, `upsertSyntax`, …): a statement asks
// "does this engine search substrings through a trigram table?", never "is this SQLite?", so a reader
// sees why the two statements differ and a third engine would be one more value, not a hunt for
// `case .sqlite`. Everything else the stores write is in the words both engines share (`?`
// placeholders, `ON CONFLICT`, `RETURNING`, `COALESCE`).

/// One engine's named capabilities: `SQLDialect.sqlite` and `SQLDialect.postgres` (`SQLBackend.dialect`).
struct SQLDialect: Sendable {
    /// How a box of latitudes and longitudes is answered from an index.
    enum SpatialIndex: Sendable {
        /// SQLite's R*Tree module: a virtual table of boxes beside the rows, joined by id. It keeps 32-bit
        /// boxes rounded outwards, so it narrows and the exact comparisons decide.
        case rtreeTable
        /// PostgreSQL's GiST index over `point(longitude, latitude)`, asked by `<@ box(point, point)`.
        case pointInBox
    }

    /// How a unique column compares without case.
    enum CaseFolding: Sendable {
        /// The column is declared `COLLATE NOCASE` (SQLite): its unique constraint is on the column.
        case collatedColumn
        /// A unique index on `lower(column)` (PostgreSQL): the conflict target is that expression.
        case loweredIndex
    }

    let spatialIndex: SpatialIndex
    /// Whether a substring search asks a trigram table of its own (SQLite's FTS5 `trigram` tokenizer,
    /// `reports_text` and `sites_text`, a `MATCH` of three characters or more); otherwise the `LIKE`
    /// itself is answered from trigram indexes on the expressions (PostgreSQL's pg_trgm, when installed).
    let hasTrigramTable: Bool
    let caseFolding: CaseFolding
    /// Whether a connection's page cache can be resized for one transaction (SQLite's `PRAGMA cache_size`).
    let hasResizablePageCache: Bool
    /// What ends a `SELECT` that claims rows, passing over those another transaction holds: "FOR UPDATE
    /// SKIP LOCKED" on PostgreSQL; nothing on SQLite, whose one writer needs no row locks.
    let skipLocked: String

    static let sqlite = SQLDialect(
        spatialIndex: .rtreeTable, hasTrigramTable: true, caseFolding: .collatedColumn, hasResizablePageCache: true,
        skipLocked: "")

    static let postgres = SQLDialect(
        spatialIndex: .pointInBox, hasTrigramTable: false, caseFolding: .loweredIndex, hasResizablePageCache: false,
        skipLocked: "FOR UPDATE SKIP LOCKED")

    /// The `ON CONFLICT` target of a unique column compared without case: `(email)` or `((lower(email)))`.
    func conflictTarget(caseInsensitive column: String) -> String {
        switch caseFolding {
        case .collatedColumn: return "(\(column))"
        case .loweredIndex: return "((lower(\(column))))"
        }
    }
}
