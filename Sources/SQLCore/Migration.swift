/// One numbered schema change. Versions are applied in ascending order and never edited once shipped.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    /// A script of statements; it runs inside the migration's transaction, so no BEGIN/COMMIT.
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
