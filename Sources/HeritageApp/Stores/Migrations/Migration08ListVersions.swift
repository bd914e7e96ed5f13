/// Migration 8: list versions.
enum Migration08ListVersions: AppMigration {
    static let version = 8
    static let name = "list versions"

    /// Each user's list version, the strong ETag of their report list (`ReportStore.listVersion`).
    /// Bumped by triggers, so in the very transaction of every change to what the list shows, whoever
    /// makes it: the list's own writes, a submit, and every transition of the upload worker. A report's
    /// listed columns (state, name, address, time, error, platform id, owner) changing, a report added or
    /// removed, or a photo of a report that is no longer a draft changing state (the "n of m photos sent"
    /// of an uploading row) bumps it; a draft's own edits and the worker's bookkeeping (attempts, next
    /// try) do not. The PostgreSQL mirror needs the same triggers (a plpgsql function doing the two
    /// statements below, AFTER INSERT/UPDATE/DELETE FOR EACH ROW); docs/DATA.md says so.
    static let sqlite = """
        CREATE TABLE list_versions (
            user_id INTEGER PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            version INTEGER NOT NULL
        ) STRICT;
        INSERT INTO list_versions (user_id, version) SELECT id, 1 FROM users;
        CREATE TRIGGER reports_list_insert AFTER INSERT ON reports
        WHEN NEW.state != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (NEW.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id = NEW.user_id;
        END;
        CREATE TRIGGER reports_list_delete AFTER DELETE ON reports
        WHEN OLD.state != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (OLD.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.user_id;
        END;
        CREATE TRIGGER reports_list_update AFTER UPDATE ON reports
        WHEN NEW.state IS NOT OLD.state OR NEW.name IS NOT OLD.name
            OR NEW.formatted_address IS NOT OLD.formatted_address OR NEW.creation_time IS NOT OLD.creation_time
            OR NEW.last_error IS NOT OLD.last_error OR NEW.platform_report_id IS NOT OLD.platform_report_id
            OR NEW.user_id IS NOT OLD.user_id
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (NEW.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id IN (NEW.user_id, OLD.user_id);
        END;
        CREATE TRIGGER photos_list_insert AFTER INSERT ON photos
        WHEN (SELECT state FROM reports WHERE id = NEW.report_id) != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT user_id, 0 FROM reports WHERE id = NEW.report_id;
            UPDATE list_versions SET version = version + 1
            WHERE user_id = (SELECT user_id FROM reports WHERE id = NEW.report_id);
        END;
        CREATE TRIGGER photos_list_delete AFTER DELETE ON photos
        WHEN (SELECT state FROM reports WHERE id = OLD.report_id) != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT user_id, 0 FROM reports WHERE id = OLD.report_id;
            UPDATE list_versions SET version = version + 1
            WHERE user_id = (SELECT user_id FROM reports WHERE id = OLD.report_id);
        END;
        CREATE TRIGGER photos_list_update AFTER UPDATE ON photos
        WHEN (NEW.state IS NOT OLD.state OR NEW.report_id IS NOT OLD.report_id)
            AND (SELECT state FROM reports WHERE id = NEW.report_id) != 'draft'
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT user_id, 0 FROM reports WHERE id = NEW.report_id;
            UPDATE list_versions SET version = version + 1
            WHERE user_id IN (SELECT user_id FROM reports WHERE id IN (NEW.report_id, OLD.report_id));
        END;
        """

    /// `sqlite`: each user's list version, bumped in the transaction of
    /// every change to what the list shows. SQLite's six triggers become one plpgsql trigger function
    /// per table, run AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, with the same conditions: a listed
    /// report (not a draft) added or removed; a report's listed columns (state, name, address, time,
    /// error, platform id, owner) changing; a photo of a report that is not a draft added, removed, or
    /// changing state or report. `list_version_bump` is SQLite's `INSERT OR IGNORE … 0` then `+ 1` as
    /// one upsert; under the stores' SERIALIZABLE writes two nodes bumping one user's row at once are
    /// ordered by its row lock (or one is run again), never lost. A trigger's `WHEN` cannot hold a
    /// subquery in PostgreSQL, so every condition is tested inside the functions; a `NULL` condition
    /// (the photo's report gone) is false there as in SQLite's `WHEN`.
    static let postgres = """
        CREATE TABLE list_versions (
            user_id bigint PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            version bigint NOT NULL
        );
        INSERT INTO list_versions (user_id, version) SELECT id, 1 FROM users;

        CREATE FUNCTION list_version_bump(target bigint) RETURNS void LANGUAGE sql AS $$
            INSERT INTO list_versions (user_id, version) VALUES ($1, 1)
            ON CONFLICT (user_id) DO UPDATE SET version = list_versions.version + 1;
        $$;

        CREATE FUNCTION reports_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                IF NEW.state <> 'draft' THEN
                    PERFORM list_version_bump(NEW.user_id);
                END IF;
            ELSIF TG_OP = 'DELETE' THEN
                IF OLD.state <> 'draft' THEN
                    PERFORM list_version_bump(OLD.user_id);
                END IF;
            ELSIF NEW.state IS DISTINCT FROM OLD.state OR NEW.name IS DISTINCT FROM OLD.name
                OR NEW.formatted_address IS DISTINCT FROM OLD.formatted_address
                OR NEW.creation_time IS DISTINCT FROM OLD.creation_time
                OR NEW.last_error IS DISTINCT FROM OLD.last_error
                OR NEW.platform_report_id IS DISTINCT FROM OLD.platform_report_id
                OR NEW.user_id IS DISTINCT FROM OLD.user_id
            THEN
                PERFORM list_version_bump(NEW.user_id);
                IF OLD.user_id IS DISTINCT FROM NEW.user_id THEN
                    UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.user_id;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_list_version AFTER INSERT OR UPDATE OR DELETE ON reports
        FOR EACH ROW EXECUTE FUNCTION reports_list_version();

        CREATE FUNCTION photos_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            owner bigint;
            previous_owner bigint;
        BEGIN
            IF TG_OP = 'DELETE' THEN
                IF (SELECT state FROM reports WHERE id = OLD.report_id) <> 'draft' THEN
                    SELECT user_id INTO owner FROM reports WHERE id = OLD.report_id;
                    PERFORM list_version_bump(owner);
                END IF;
            ELSIF TG_OP = 'UPDATE' AND NEW.state IS NOT DISTINCT FROM OLD.state
                AND NEW.report_id IS NOT DISTINCT FROM OLD.report_id
            THEN
                NULL;
            ELSIF (SELECT state FROM reports WHERE id = NEW.report_id) <> 'draft' THEN
                SELECT user_id INTO owner FROM reports WHERE id = NEW.report_id;
                PERFORM list_version_bump(owner);
                IF TG_OP = 'UPDATE' AND NEW.report_id IS DISTINCT FROM OLD.report_id THEN
                    SELECT user_id INTO previous_owner FROM reports WHERE id = OLD.report_id;
                    IF previous_owner IS DISTINCT FROM owner THEN
                        UPDATE list_versions SET version = version + 1 WHERE user_id = previous_owner;
                    END IF;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER photos_list_version AFTER INSERT OR UPDATE OR DELETE ON photos
        FOR EACH ROW EXECUTE FUNCTION photos_list_version();
        """
}
