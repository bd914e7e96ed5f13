import Foundation
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The register's first page at a nation's size (SITE-06, SITE-07): filtered on the sites' own columns
/// (or not at all), the page walks the sites in name order by `sites_name` (migration 26) and stops at
/// its last match, never reading and sorting the whole register; filtered on the standing (condition,
/// priority, worsened, reported), SQLite starts from the reported sites (by their ids, never a scan of
/// the register) and sorts those only. A site's standing is read from `reports_site_time` in order, with
/// no sort per site. Without these indexes the first page took seconds at 100,000 sites (bench/sites).
@Suite(.serialized) struct SiteRegisterPlanTests {
    static let bySiteColumns: [SiteRegisterFilter] = [
        SiteRegisterFilter(), SiteRegisterFilter(notReportedSince: 1_700_000_000),
        SiteRegisterFilter(designation: "SM"),
    ]
    static let byStanding: [SiteRegisterFilter] = [
        SiteRegisterFilter(condition: "bad"), SiteRegisterFilter(priority: "A"),
        SiteRegisterFilter(worsenedSince: 1_700_000_000), SiteRegisterFilter(reportedOnly: true),
    ]
    static let filters = bySiteColumns + byStanding

    @Test func site07RegisterPageWalksTheNameIndexOnSQLite() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stores = try Stores.sqlite(path: folder + "/har.sqlite")
        stores.close()
        let database = try Database(path: folder + "/har.sqlite", create: false)
        for filter in Self.filters {
            let (sql, values) = SiteReviewSQL.registerPage(filter, after: nil, limit: 51)
            let plan = try database.query("EXPLAIN QUERY PLAN " + sql, values).map { $0.values[3].string ?? "" }
            if Self.bySiteColumns.contains(filter) {
                #expect(plan.contains { $0.contains("USING INDEX sites_name") }, "\(filter): \(plan)")
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(filter): \(plan)")
            } else {
                #expect(plan.contains { $0.hasPrefix("SEARCH s USING INTEGER PRIMARY KEY") }, "\(filter): \(plan)")
            }
            #expect(!plan.contains { $0 == "SCAN s" }, "\(filter): \(plan)")  // a scan not in name order
            #expect(plan.contains { $0.contains("reports_site_time") }, "\(filter): \(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") && $0.hasPrefix("|") }, "\(filter)")
        }
    }

    @Test func site07RegisterPageWalksTheNameIndexOnPostgreSQL() throws {
        guard PostgresCluster.isInstalled else {
            print("SiteRegisterPlanTests: \(PostgresCluster.skipMessage)")
            return
        }
        let url = try PostgresCluster.shared().makeDatabase()
        let stores = try Stores.postgres(url: url, poolSize: 1)
        stores.close()
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        // The tables are empty: the planner would rather scan and sort them, as it would not 400,000 sites.
        try connection.execute("SET enable_seqscan = off")
        try connection.execute("SET enable_sort = off")
        for filter in Self.filters {
            let (sql, values) = SiteReviewSQL.registerPage(filter, after: nil, limit: 51)
            let plan = try connection.query("EXPLAIN " + sql, values).map { $0.values[0].string ?? "" }
            #expect(plan.contains { $0.contains("sites_name") }, "\(filter): \(plan)")
            #expect(!plan.contains { $0.contains("Sort") && !$0.contains("Incremental") }, "\(filter): \(plan)")
            #expect(plan.contains { $0.contains("reports_site_time") }, "\(filter): \(plan)")
        }
    }
}
