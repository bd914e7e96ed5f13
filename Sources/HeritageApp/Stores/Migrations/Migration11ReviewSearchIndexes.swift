/// Migration 11: review search indexes, what lets the dashboard's filters answer from an index at 100,000
/// reports instead of reading the table (docs/BENCHMARKS.md has the plans and the figures).
enum Migration11ReviewSearchIndexes: AppMigration {
    static let version = 11
    static let name = "review search indexes"

    /// - the reporter filter reads the matching users first (`user_id IN (…)`), then each one's reports
    ///   newest first: `reports_user_submitted`;
    /// - "has a failure" is a partial index of exactly the reports it names, newest first;
    /// - the text filter (a substring of the name or address, as `LIKE '%…%'`) asks `reports_text`, an
    ///   FTS5 index of trigrams kept by triggers (external content: the text stays in `reports`);
    /// - the map's bounds ask `reports_position`, an R*Tree of the reports' positions kept by triggers.
    static let sqlite = """
        CREATE INDEX reports_user_submitted ON reports(user_id, submitted_at DESC, id DESC);
        CREATE INDEX reports_failure ON reports(submitted_at DESC, id DESC)
            WHERE state = 'needs_attention' OR last_error IS NOT NULL;

        CREATE VIRTUAL TABLE reports_text USING fts5(
            name, formatted_address, content = 'reports', content_rowid = 'id', tokenize = 'trigram');
        INSERT INTO reports_text (reports_text) VALUES ('rebuild');
        CREATE TRIGGER reports_text_insert AFTER INSERT ON reports BEGIN
            INSERT INTO reports_text (rowid, name, formatted_address)
            VALUES (NEW.id, NEW.name, NEW.formatted_address);
        END;
        CREATE TRIGGER reports_text_delete AFTER DELETE ON reports BEGIN
            INSERT INTO reports_text (reports_text, rowid, name, formatted_address)
            VALUES ('delete', OLD.id, OLD.name, OLD.formatted_address);
        END;
        CREATE TRIGGER reports_text_update AFTER UPDATE OF name, formatted_address ON reports BEGIN
            INSERT INTO reports_text (reports_text, rowid, name, formatted_address)
            VALUES ('delete', OLD.id, OLD.name, OLD.formatted_address);
            INSERT INTO reports_text (rowid, name, formatted_address)
            VALUES (NEW.id, NEW.name, NEW.formatted_address);
        END;

        CREATE VIRTUAL TABLE reports_position USING rtree(id, south, north, west, east);
        INSERT INTO reports_position (id, south, north, west, east)
            SELECT id, latitude, latitude, longitude, longitude FROM reports
            WHERE latitude IS NOT NULL AND longitude IS NOT NULL;
        CREATE TRIGGER reports_position_insert AFTER INSERT ON reports
        WHEN NEW.latitude IS NOT NULL AND NEW.longitude IS NOT NULL BEGIN
            INSERT INTO reports_position (id, south, north, west, east)
            VALUES (NEW.id, NEW.latitude, NEW.latitude, NEW.longitude, NEW.longitude);
        END;
        CREATE TRIGGER reports_position_delete AFTER DELETE ON reports BEGIN
            DELETE FROM reports_position WHERE id = OLD.id;
        END;
        CREATE TRIGGER reports_position_update AFTER UPDATE OF latitude, longitude ON reports BEGIN
            DELETE FROM reports_position WHERE id = OLD.id;
            INSERT INTO reports_position (id, south, north, west, east)
            SELECT NEW.id, NEW.latitude, NEW.latitude, NEW.longitude, NEW.longitude
            WHERE NEW.latitude IS NOT NULL AND NEW.longitude IS NOT NULL;
        END;
        """

    /// `sqlite` in PostgreSQL's words: the same two B-tree indexes; the map's bounds by a
    /// GiST index of `point(longitude, latitude)` (built in); the text by trigram GIN indexes when the
    /// `pg_trgm` extension can be had (a contrib module, trusted since PostgreSQL 13: the database's
    /// owner may create it). Without it the migration still applies and the text filter reads the table.
    static let postgres = """
        CREATE INDEX reports_user_submitted ON reports(user_id, submitted_at DESC, id DESC);
        CREATE INDEX reports_failure ON reports(submitted_at DESC, id DESC)
            WHERE state = 'needs_attention' OR last_error IS NOT NULL;
        CREATE INDEX reports_position ON reports USING gist (point(longitude, latitude));
        DO $$
        BEGIN
            BEGIN
                CREATE EXTENSION IF NOT EXISTS pg_trgm;
            EXCEPTION WHEN OTHERS THEN
                RAISE NOTICE 'pg_trgm is not available: the review text filter reads the table';
            END;
            IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
                EXECUTE 'CREATE INDEX reports_name_trigrams ON reports '
                    || 'USING gin (lower(coalesce(name, '''')) gin_trgm_ops)';
                EXECUTE 'CREATE INDEX reports_address_trigrams ON reports '
                    || 'USING gin (lower(coalesce(formatted_address, '''')) gin_trgm_ops)';
            END IF;
        END
        $$;
        """
}
