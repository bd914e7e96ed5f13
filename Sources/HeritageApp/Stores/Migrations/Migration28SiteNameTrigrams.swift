/// Migration 28: the register's text filter (a part of a site's name or reference, any case) answered from
/// a trigram index instead of reading every site, in both dialects side by side, as migration 11 does for
/// the reports' text (docs/SITES.md, "The register's view").
///
/// - SQLite: `sites_text`, an FTS5 table of the names' and references' trigrams (the `trigram` tokenizer,
///   SQLite 3.34 and later), external content (the text stays in `sites`), kept in step by triggers on
///   insert, delete and a change of name or reference, whatever writes the site (an import, a re-import,
///   a site made from a report or by a kiosk), in the same transaction.
/// - PostgreSQL: GIN indexes of `pg_trgm` on the two lowered expressions the filter's `LIKE` reads, which
///   PostgreSQL keeps itself; created when the extension can be had (a contrib module, trusted since
///   PostgreSQL 13), else the migration still applies and the filter reads the table.
enum Migration28SiteNameTrigrams: AppMigration {
    static let version = 28
    static let name = "site name trigrams"

    static let sqlite = """
        CREATE VIRTUAL TABLE sites_text USING fts5(
            name, reference, content = 'sites', content_rowid = 'id', tokenize = 'trigram');
        INSERT INTO sites_text (sites_text) VALUES ('rebuild');
        CREATE TRIGGER sites_text_insert AFTER INSERT ON sites BEGIN
            INSERT INTO sites_text (rowid, name, reference) VALUES (NEW.id, NEW.name, NEW.reference);
        END;
        CREATE TRIGGER sites_text_delete AFTER DELETE ON sites BEGIN
            INSERT INTO sites_text (sites_text, rowid, name, reference) VALUES ('delete', OLD.id, OLD.name, OLD.reference);
        END;
        CREATE TRIGGER sites_text_update AFTER UPDATE OF name, reference ON sites
        WHEN OLD.name IS NOT NEW.name OR OLD.reference IS NOT NEW.reference BEGIN
            INSERT INTO sites_text (sites_text, rowid, name, reference) VALUES ('delete', OLD.id, OLD.name, OLD.reference);
            INSERT INTO sites_text (rowid, name, reference) VALUES (NEW.id, NEW.name, NEW.reference);
        END;
        """

    static let postgres = """
        DO $$
        BEGIN
            BEGIN
                CREATE EXTENSION IF NOT EXISTS pg_trgm;
            EXCEPTION WHEN OTHERS THEN
                RAISE NOTICE 'pg_trgm is not available: the register text filter reads the table';
            END;
            IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
                EXECUTE 'CREATE INDEX sites_name_trigrams ON sites USING gin (lower(name) gin_trgm_ops)';
                EXECUTE 'CREATE INDEX sites_reference_trigrams ON sites '
                    || 'USING gin (lower(coalesce(reference, '''')) gin_trgm_ops)';
            END IF;
        END
        $$;
        """
}
