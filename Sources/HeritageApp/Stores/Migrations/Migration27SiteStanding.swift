/// Migration 27: each site's current standing kept on its row (docs/SITES.md, "A site's standing"), in
/// both dialects side by side, so that the register's filters on it are index searches instead of
/// working out every reported site's standing from its reports.
///
/// - Columns of `sites`: `cur_condition`, `cur_priority` and `cur_at` (the condition, priority and
///   submission time of its latest approved report, by submission time then id), `prev_condition` (the
///   approved report's before it), `worsened_at` (`cur_at` when the current condition ranks below the one
///   before: bad < poor < fair < good; else none), `report_count` and `last_at` (how many reports count
///   for it and the newest one's submission time). A report counts when it is reviewable and not in the
///   trash, the same words as `SiteReviewSQL.counted`.
/// - Kept by triggers on `reports`, whatever writes it (a decision, an undo, the trash, attach, detach,
///   a new site from a report, a kiosk's or a volunteer's submission, a delivery state that makes a
///   report no longer count, a deletion, a copy into PostgreSQL): after a report's insert, its delete, or
///   an update that changes one of the columns the standing reads, the site before and the site after are
///   worked out again from their reports by `reports_site_time`, in the same transaction as the change.
///   Filled in here for the sites that have reports.
/// - Partial indexes for the filters, each in name order so a page stops at its last match:
///   `sites_condition`, `sites_priority`, `sites_reported`, and `sites_worsened` (only the sites whose
///   condition worsened, their `worsened_at` in the index, so "worsened since" reads no other site).
enum Migration27SiteStanding: AppMigration {
    static let version = 27
    static let name = "site standing"

    /// A report that counts for its site: reviewable (`ReviewSQL.reviewable`) and not in the trash.
    static let counted = """
        r.submitted_at IS NOT NULL AND (r.state NOT IN ('draft', 'cancelled', 'deleted')
            OR (r.state = 'deleted' AND r.review_state IN ('rejected', 'duplicate'))) AND r.discarded_at IS NULL
        """

    /// The latest approved report's column (or the one `offset` before it), for the site being updated.
    static func latest(_ column: String, offset: Int = 0, from reports: String = "reports") -> String {
        "(SELECT \(column) FROM \(reports) r WHERE r.site_id = sites.id AND \(counted) AND r.review_state = 'approved' "
            + "ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1\(offset > 0 ? " OFFSET \(offset)" : ""))"
    }

    static func rank(_ column: String) -> String {
        "CASE \(column) WHEN 'bad' THEN 0 WHEN 'poor' THEN 1 WHEN 'fair' THEN 2 WHEN 'good' THEN 3 END"
    }

    /// Works out the standing of the sites `which` (a SQL condition on `sites`) from their reports: two
    /// statements, as an UPDATE's expressions read the row as it was before it.
    /// `reports` is where the site's reports are read from: the table (SQLite), or PostgreSQL's
    /// `siteReports`.
    static func refresh(_ which: String, reports: String = "reports") -> String {
        """
        UPDATE sites SET cur_condition = \(latest("r.condition", from: reports)),
            cur_priority = \(latest("r.priority_category", from: reports)),
            cur_at = \(latest("r.submitted_at", from: reports)),
            prev_condition = \(latest("r.condition", offset: 1, from: reports)),
            report_count = (SELECT count(*) FROM \(reports) r WHERE r.site_id = sites.id AND \(counted)),
            last_at = (SELECT r.submitted_at FROM \(reports) r WHERE r.site_id = sites.id AND \(counted)
                ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1)
        WHERE \(which);
        UPDATE sites SET worsened_at = CASE WHEN (\(rank("cur_condition"))) < (\(rank("prev_condition")))
            THEN cur_at END
        WHERE \(which);
        """
    }

    /// PostgreSQL reads a site's reports through its `site_id` index only, then filters them: the site's
    /// few rows, whatever the statistics say. With the filters beside `site_id = …`, a planner that
    /// thinks `reports` small (a table filled in one statement, a copy into PostgreSQL, has no statistics
    /// yet) chose `reports_review_counts` and read every approved report for each row inserted: 80,400
    /// reports loaded in one statement did not finish in 44 minutes. `OFFSET 0` keeps the subquery from
    /// being merged into the outer one (so the filters stay outside it), and the trigger function plans
    /// with `enable_seqscan = off`, so the subquery is the `reports_site_time` look-up.
    static let siteReports = "(SELECT * FROM reports WHERE site_id = sites.id OFFSET 0)"

    /// What PostgreSQL's trigger function runs: the standing of the site before and the site after (its
    /// PL/pgSQL variables), read through `siteReports`. One text for the function and for
    /// `SiteStandingPlanTests`, which plans it.
    static let triggerRefresh = refresh("id IN (site_before, site_after)", reports: siteReports)

    /// The columns a report's standing reads: an update that changes none of them changes no standing.
    static let read = [
        "site_id", "state", "review_state", "discarded_at", "submitted_at", "condition", "priority_category",
    ]

    static let indexes = """
        CREATE INDEX sites_condition ON sites(cur_condition, name, id) WHERE cur_condition IS NOT NULL;
        CREATE INDEX sites_priority ON sites(cur_priority, name, id) WHERE cur_priority IS NOT NULL;
        CREATE INDEX sites_worsened ON sites(name, id, worsened_at) WHERE worsened_at IS NOT NULL;
        CREATE INDEX sites_reported ON sites(name, id) WHERE report_count > 0;
        """

    static let sqlite = """
        ALTER TABLE sites ADD COLUMN cur_condition TEXT;
        ALTER TABLE sites ADD COLUMN cur_priority TEXT;
        ALTER TABLE sites ADD COLUMN cur_at REAL;
        ALTER TABLE sites ADD COLUMN prev_condition TEXT;
        ALTER TABLE sites ADD COLUMN worsened_at REAL;
        ALTER TABLE sites ADD COLUMN report_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sites ADD COLUMN last_at REAL;
        \(refresh("id IN (SELECT site_id FROM reports WHERE site_id IS NOT NULL)"))
        \(indexes)
        CREATE TRIGGER reports_site_standing_insert AFTER INSERT ON reports WHEN NEW.site_id IS NOT NULL BEGIN
            \(refresh("id = NEW.site_id"))
        END;
        CREATE TRIGGER reports_site_standing_delete AFTER DELETE ON reports WHEN OLD.site_id IS NOT NULL BEGIN
            \(refresh("id = OLD.site_id"))
        END;
        CREATE TRIGGER reports_site_standing_update AFTER UPDATE OF \(read.joined(separator: ", ")) ON reports
        WHEN \(read.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")) BEGIN
            \(refresh("id IN (OLD.site_id, NEW.site_id)"))
        END;
        """

    /// `sqlite` in PostgreSQL's words: one trigger function (PL/pgSQL, built in) for the three triggers,
    /// working out the site before and the site after (either may be none). Its reads are one or two
    /// sites' few reports, planned as index look-ups whatever the statistics say (`siteReports`).
    static let postgres = """
        ALTER TABLE sites ADD COLUMN cur_condition text;
        ALTER TABLE sites ADD COLUMN cur_priority text;
        ALTER TABLE sites ADD COLUMN cur_at double precision;
        ALTER TABLE sites ADD COLUMN prev_condition text;
        ALTER TABLE sites ADD COLUMN worsened_at double precision;
        ALTER TABLE sites ADD COLUMN report_count bigint NOT NULL DEFAULT 0;
        ALTER TABLE sites ADD COLUMN last_at double precision;
        \(refresh("id IN (SELECT site_id FROM reports WHERE site_id IS NOT NULL)", reports: siteReports))
        \(indexes)
        CREATE FUNCTION reports_site_standing() RETURNS trigger LANGUAGE plpgsql
        SET enable_seqscan = off AS $$
        DECLARE
            site_before bigint := NULL;
            site_after bigint := NULL;
        BEGIN
            IF TG_OP <> 'INSERT' THEN site_before := OLD.site_id; END IF;
            IF TG_OP <> 'DELETE' THEN site_after := NEW.site_id; END IF;
            \(triggerRefresh)
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER reports_site_standing_insert AFTER INSERT ON reports
            FOR EACH ROW WHEN (NEW.site_id IS NOT NULL) EXECUTE FUNCTION reports_site_standing();
        CREATE TRIGGER reports_site_standing_delete AFTER DELETE ON reports
            FOR EACH ROW WHEN (OLD.site_id IS NOT NULL) EXECUTE FUNCTION reports_site_standing();
        CREATE TRIGGER reports_site_standing_update AFTER UPDATE OF \(read.joined(separator: ", ")) ON reports
            FOR EACH ROW WHEN (\(read.map { "OLD.\($0) IS DISTINCT FROM NEW.\($0)" }.joined(separator: " OR ")))
            EXECUTE FUNCTION reports_site_standing();
        """
}
