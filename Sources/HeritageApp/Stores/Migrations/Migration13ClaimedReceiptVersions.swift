/// Migration 13: claimed receipts' list versions.
enum Migration13ClaimedReceiptVersions: AppMigration {
    static let version = 13
    static let name = "claimed receipts' list versions"

    /// A claimed kiosk report shows in its claimant's list (`KioskStore.claimed`): what it shows
    /// of it (state, review state and public reason, name, location, time) changing, or its receipt going
    /// away with the report, moves the claimant's list version too, in the same transaction, as
    /// `Migration08`'s triggers do for the owner. The claim itself moves it in `KioskStatements.claim`.
    static let sqlite = """
        CREATE TRIGGER reports_claimed_list_update AFTER UPDATE ON reports
        WHEN NEW.kiosk_id IS NOT NULL AND (NEW.state IS NOT OLD.state OR NEW.review_state IS NOT OLD.review_state
            OR NEW.review_reason IS NOT OLD.review_reason OR NEW.name IS NOT OLD.name
            OR NEW.latitude IS NOT OLD.latitude OR NEW.longitude IS NOT OLD.longitude
            OR NEW.submitted_at IS NOT OLD.submitted_at)
        BEGIN
            INSERT OR IGNORE INTO list_versions (user_id, version)
            SELECT claimed_by, 0 FROM kiosk_receipts WHERE report_id = NEW.id AND claimed_by IS NOT NULL;
            UPDATE list_versions SET version = version + 1
            WHERE user_id = (SELECT claimed_by FROM kiosk_receipts WHERE report_id = NEW.id);
        END;
        CREATE TRIGGER kiosk_receipts_claimed_delete AFTER DELETE ON kiosk_receipts
        WHEN OLD.claimed_by IS NOT NULL
        BEGIN
            UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.claimed_by;
        END;
        """

    /// `sqlite` in PostgreSQL's words: a claimed kiosk report's listed columns
    /// changing, or its receipt deleted, bump the claimant's list version.
    static let postgres = """
        CREATE FUNCTION reports_claimed_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            claimant bigint;
        BEGIN
            IF NEW.kiosk_id IS NOT NULL AND (NEW.state IS DISTINCT FROM OLD.state
                OR NEW.review_state IS DISTINCT FROM OLD.review_state
                OR NEW.review_reason IS DISTINCT FROM OLD.review_reason OR NEW.name IS DISTINCT FROM OLD.name
                OR NEW.latitude IS DISTINCT FROM OLD.latitude OR NEW.longitude IS DISTINCT FROM OLD.longitude
                OR NEW.submitted_at IS DISTINCT FROM OLD.submitted_at)
            THEN
                SELECT claimed_by INTO claimant FROM kiosk_receipts WHERE report_id = NEW.id;
                IF claimant IS NOT NULL THEN
                    PERFORM list_version_bump(claimant);
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_claimed_list_version AFTER UPDATE ON reports
        FOR EACH ROW EXECUTE FUNCTION reports_claimed_list_version();

        CREATE FUNCTION kiosk_receipts_claimed_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.claimed_by IS NOT NULL THEN
                UPDATE list_versions SET version = version + 1 WHERE user_id = OLD.claimed_by;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER kiosk_receipts_claimed_list_version AFTER DELETE ON kiosk_receipts
        FOR EACH ROW EXECUTE FUNCTION kiosk_receipts_claimed_list_version();
        """
}
