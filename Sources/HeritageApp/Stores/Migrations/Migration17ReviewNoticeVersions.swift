/// Migration 17: review notices' list versions.
enum Migration17ReviewNoticeVersions: AppMigration {
    static let version = 17
    static let name = "review notices' list versions"

    /// The list shows the owner's review notices (`ReviewStore.reviewStates`: a report's review state,
    /// message and reason, once submitted), which `Migration08`'s triggers did not watch: a coordinator's
    /// decision or the reporter's reply left the list's ETag unchanged, and a 304 (or a kept page) went
    /// on showing the old notice. Bumped here, in the transaction of the change, whoever makes it.
    static let sqlite = """
        CREATE TRIGGER reports_review_list_update AFTER UPDATE ON reports
        WHEN NEW.review_state IS NOT OLD.review_state OR NEW.review_message IS NOT OLD.review_message
            OR NEW.review_reason IS NOT OLD.review_reason OR NEW.submitted_at IS NOT OLD.submitted_at
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version) VALUES (NEW.user_id, 0);
            UPDATE list_versions SET version = version + 1 WHERE user_id = NEW.user_id;
        END;
        """

    /// `sqlite` in PostgreSQL's words: a report's review state, message,
    /// reason or submission changing bumps its owner's list version.
    static let postgres = """
        CREATE FUNCTION reports_review_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.review_state IS DISTINCT FROM OLD.review_state
                OR NEW.review_message IS DISTINCT FROM OLD.review_message
                OR NEW.review_reason IS DISTINCT FROM OLD.review_reason
                OR NEW.submitted_at IS DISTINCT FROM OLD.submitted_at
            THEN
                PERFORM list_version_bump(NEW.user_id);
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_review_list_version AFTER UPDATE ON reports
        FOR EACH ROW EXECUTE FUNCTION reports_review_list_version();
        """
}
