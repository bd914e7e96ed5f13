/// Migration 26: the register's view at a nation's size (docs/SITES.md, "The register's view"), in both
/// dialects side by side.
///
/// - `sites_name` on `(name, id)`: the register's page is in name order by keyset, so with this index
///   both engines walk the register in order and stop at the page's 51st match, instead of reading and
///   sorting every site (measured at 100,000 sites: seconds without it).
/// - `reports_site_time` on `(site_id, submitted_at DESC, id DESC)`: a site's standing (its latest
///   approved report and the one before, its last report) is read from this index in order, without a
///   sort per site. It replaces `reports_site`, which it covers.
enum Migration26SitesRegisterViewIndexes: AppMigration {
    static let version = 26
    static let name = "sites register view indexes"

    static let sqlite = """
        CREATE INDEX sites_name ON sites(name, id);
        CREATE INDEX reports_site_time ON reports(site_id, submitted_at DESC, id DESC);
        DROP INDEX reports_site;
        """

    static let postgres = """
        CREATE INDEX sites_name ON sites(name, id);
        CREATE INDEX reports_site_time ON reports(site_id, submitted_at DESC, id DESC);
        DROP INDEX reports_site;
        """
}
