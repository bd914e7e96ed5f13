import FoundationEssentials
import PostgresStorage

/// A PostgreSQL dump is restored by the object list of our schema only: the entries of
/// `pg_restore --list` must each be an object the migrations make at the dump's schema version
/// (a function, trigger, view, rule or extension of anyone else's would run in the restored database),
/// and `pg_restore --use-list` then loads exactly the list read. What the migrations make is read, not
/// written down: they are applied to the empty target database in a transaction that is rolled back,
/// and its catalogue lists their tables, sequences, indexes, constraints, defaults, triggers, functions
/// and extensions as `pg_restore --list` names them (`TYPE SCHEMA NAME`, then the owner).
enum PostgresDumpObjects {
    /// The entries `pg_restore --list` would name for what the migrations up to `version` make.
    static func expected(_ db: PostgresConnection, version: Int) throws -> Set<String> {
        try db.execute("BEGIN")
        defer { _ = try? db.execute("ROLLBACK") }
        try db.execute(
            "CREATE TABLE \(PostgresMigrator.tableName) (version bigint PRIMARY KEY, name text NOT NULL, "
                + "applied_at text NOT NULL)")
        for migration in AppMigrations.postgres where migration.version <= version {
            try db.execute(migration.sql)
        }
        let rows = try db.query(
            """
            SELECT k.kind || ' public ' || c.relname FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
              JOIN (VALUES ('r', 'TABLE'), ('r', 'TABLE DATA'), ('S', 'SEQUENCE'), ('S', 'SEQUENCE SET'),
                           ('S', 'SEQUENCE OWNED BY'), ('i', 'INDEX'), ('v', 'VIEW'), ('m', 'MATERIALIZED VIEW'))
                AS k(relkind, kind) ON k.relkind = c.relkind::text
            UNION ALL
            SELECT k.kind || ' public ' || c.relname || ' ' || o.conname FROM pg_constraint o
              JOIN pg_class c ON c.oid = o.conrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
              CROSS JOIN (VALUES ('CONSTRAINT'), ('FK CONSTRAINT')) AS k(kind)
            UNION ALL
            SELECT 'DEFAULT public ' || c.relname || ' ' || a.attname FROM pg_attrdef d
              JOIN pg_class c ON c.oid = d.adrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
              JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
            UNION ALL
            SELECT 'TRIGGER public ' || c.relname || ' ' || t.tgname FROM pg_trigger t
              JOIN pg_class c ON c.oid = t.tgrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
              WHERE NOT t.tgisinternal
            UNION ALL
            SELECT 'FUNCTION public ' || p.proname || '(' || oidvectortypes(p.proargtypes) || ')'
              FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
              WHERE NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
            UNION ALL
            SELECT k.kind || e.extname FROM pg_extension e
              CROSS JOIN (VALUES ('EXTENSION - '), ('COMMENT - EXTENSION ')) AS k(kind)
              WHERE e.extname <> 'plpgsql'
            """)
        return Set(try rows.compactMap { try $0.string(0) } + ["SCHEMA - public", "COMMENT - SCHEMA public"])
    }

    /// The list's entries that are not ours, each as `pg_restore --list` names it.
    static func foreign(in list: [String], expected: Set<String>) -> [String] {
        list.compactMap { line -> String? in
            guard let entry = described(line) else { return nil }
            return expected.contains { entry == $0 || isOwnerAfter($0, in: entry) } ? nil : entry
        }
    }

    /// A list line's `TYPE SCHEMA NAME OWNER`: what follows `ID; TABLEOID OID `; nil for comments.
    static func described(_ line: String) -> String? {
        let text = line.trimmingPrefix(" ")
        guard !text.isEmpty, !text.hasPrefix(";"), let semicolon = text.firstIndex(of: ";") else { return nil }
        let words = text[text.index(after: semicolon)...].split(separator: " ", omittingEmptySubsequences: true)
        guard words.count > 2 else { return String(text) }
        return words.dropFirst(2).joined(separator: " ")
    }

    /// `entry` is `descriptor` then one word (the owner).
    private static func isOwnerAfter(_ descriptor: String, in entry: String) -> Bool {
        entry.hasPrefix(descriptor + " ") && !entry.dropFirst(descriptor.count + 1).contains(" ")
    }
}
