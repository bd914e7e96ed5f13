/// Migration 24: the e-mail look-ups an index search on SQLite too, in both dialects side by side.
///
/// The stores look an account or a role up by e-mail with one SQL text for both engines,
/// `lower(email) = lower(?)`. PostgreSQL has had unique indexes on `lower(email)` since migrations 2
/// (`users_email`) and 6 (`user_roles_email`), so there it was already an index search. On SQLite the
/// columns' own indexes are on `email COLLATE NOCASE`, which that expression cannot use: `EXPLAIN QUERY
/// PLAN` showed a scan of the whole index. SQLite indexes an expression as PostgreSQL does (lower() is
/// deterministic; both fold ASCII letters only, as the look-up itself does), so the same text becomes a
/// `SEARCH … USING INDEX` (`EmailLookupPlanTests`). Not unique: the NOCASE unique constraints already
/// say that, and what binds to what by case is the stores' business, not this index's.
enum Migration24EmailIndexes: AppMigration {
    static let version = 24
    static let name = "e-mail look-ups by index on SQLite"

    static let sqlite = """
        CREATE INDEX users_email_lower ON users (lower(email));
        CREATE INDEX user_roles_email_lower ON user_roles (lower(email));
        """

    /// Nothing to add: `users_email` and `user_roles_email` are these indexes already.
    static let postgres = """
        SELECT 1;
        """
}
