import Foundation
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The standing's triggers (migration 27) read a site's reports through `reports_site_time` and nothing
/// else (SITE-07), on a fresh database whose `reports` were filled in one statement and never analysed:
/// the state in which PostgreSQL's planner, asked for a site's approved reports with every filter beside
/// `site_id = …`, chose `reports_review_counts` and read every approved report for each row inserted
/// (docs/SITES.md, "At a nation's size"; docs/BENCHMARKS.md). PostgreSQL is checked twice: by what the
/// trigger function did while the reports went in (the transaction's scan counts of each index on
/// `reports`), and by the plans of the function's own statements (`Migration27SiteStanding.triggerRefresh`,
/// the text the function holds in `pg_proc`) under the settings the function sets.
@Suite(.serialized) struct SiteStandingPlanTests {
    /// Sites in the register; one in `reportedEvery` has two approved reports, one in `thirdEvery` of
    /// those a third not yet approved (as bench/sites-reports.sql, smaller): 4,080 reports. Enough for
    /// the trap to show: with the function as first written (the subquery unfenced, no `enable_seqscan`),
    /// this insert scanned `reports_review_counts` 16,320 times, reading 65 million index entries; as
    /// shipped it scans `reports_site_time` 24,480 times (six a row), reading 50,400 entries.
    static let siteCount = 4_000
    static let reportedEvery = 2
    static let thirdEvery = 50
    static let reportsPerSite = 3

    static let fillSites = """
        INSERT INTO sites (reference, name, designation, lat, lon, source, created_at, updated_at)
        SELECT 'R-' || g, 'Site ' || md5(g::text), 'LB', 50 + (g % 1000) / 1000.0, -1 + (g % 997) / 1000.0,
            'import', 0, 0
        FROM generate_series(1, \(siteCount)) g
        """

    /// The reports, in one statement: the trigger runs once for each row at its end, on a table the
    /// planner knows only by its size.
    static let fillReports = """
        INSERT INTO reports (user_id, local_id, state, name, condition, priority_category, latitude, longitude,
            creation_time, submitted_at, updated_at, review_state, site_id)
        SELECT (SELECT id FROM users WHERE email = 'plan@example.org'), 'plan-' || s.id || '-' || k.k, 'stored',
            s.name, (ARRAY['bad', 'poor', 'fair', 'good'])[(s.id * k.k) % 4 + 1],
            (ARRAY['A', 'B', 'C', 'D', 'E', 'F'])[(s.id + k.k) % 6 + 1], s.lat, s.lon,
            1700000000 + k.k * 86400, 1700000000 + k.k * 86400, 1700000000,
            CASE WHEN k.k = 3 THEN 'received' ELSE 'approved' END, s.id
        FROM sites s, (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3) k
        WHERE s.id % \(reportedEvery) = 0 AND (k.k < 3 OR s.id % \(thirdEvery) = 0)
        """

    /// Each index on `reports` with the scans and index entries this transaction made of it so far.
    static func indexUse(_ connection: PostgresConnection) throws -> [String: (scans: Int64, entries: Int64)] {
        let rows = try connection.query(
            """
            SELECT c.relname, pg_stat_get_xact_numscans(c.oid), pg_stat_get_xact_tuples_returned(c.oid)
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'reports'::regclass
            """)
        var use: [String: (scans: Int64, entries: Int64)] = [:]
        for row in rows {
            use[row.values[0].string ?? ""] = (row.values[1].int ?? -1, row.values[2].int ?? -1)
        }
        return use
    }

    /// The plan's nodes (node type, relation, index), from `EXPLAIN (FORMAT JSON)`'s output.
    static func nodes(_ json: String) throws -> [(type: String, relation: String?, index: String?)] {
        var found: [(type: String, relation: String?, index: String?)] = []
        func walk(_ node: [String: Any]) {
            found.append(
                (node["Node Type"] as? String ?? "", node["Relation Name"] as? String, node["Index Name"] as? String))
            for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
        }
        let top = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        for entry in top {
            if let plan = entry["Plan"] as? [String: Any] { walk(plan) }
        }
        return found
    }

    /// The statements of `refresh`'s text, one by one.
    static func statements(_ script: String) -> [String] {
        script.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    @Test func site07TriggerReadsASitesReportsBySiteOnPostgreSQL() throws {
        guard let connection = try PostgresCluster.migratedConnection("SiteStandingPlanTests") else { return }
        defer { connection.close() }

        // The function in the database holds the statements planned below, with the settings applied below.
        let function = try #require(
            try connection.query(
                "SELECT prosrc, array_to_string(proconfig, ';') FROM pg_proc WHERE proname = 'reports_site_standing'"
            )
            .first)
        let source = function.values[0].string ?? ""
        #expect(source.contains(Migration27SiteStanding.triggerRefresh))
        let settings = (function.values[1].string ?? "").split(separator: ";").map(String.init)
        #expect(settings == ["enable_seqscan=off"])

        // Everything in one transaction, rolled back: no ANALYZE, and autovacuum never sees these rows.
        try connection.execute("BEGIN")
        defer { try? connection.execute("ROLLBACK") }
        try connection.execute(Self.fillSites)
        try connection.execute("INSERT INTO users (email, created_at, updated_at) VALUES ('plan@example.org', 0, 0)")
        let before = try Self.indexUse(connection)
        let inserted = try connection.run(Self.fillReports)
        let reported = Self.siteCount / Self.reportedEvery
        #expect(inserted == 2 * reported + Self.siteCount / Self.thirdEvery)
        let after = try Self.indexUse(connection)
        let bySite = "reports_site_time"
        #expect(after[bySite] != nil, "no \(bySite): \(after.keys.sorted())")

        // What the trigger read: each row's standing is six look-ups of its site by `reports_site_time`, each
        // reading that site's few reports, and no other index of `reports`, nor the table whole.
        var use: [String: (scans: Int64, entries: Int64)] = [:]
        for (index, counts) in after {
            let earlier = before[index] ?? (0, 0)
            use[index] = (counts.scans - earlier.scans, counts.entries - earlier.entries)
        }
        let siteUse = use[bySite] ?? (0, 0)
        #expect(siteUse.scans >= Int64(inserted), "\(use)")
        #expect(siteUse.entries <= siteUse.scans * Int64(Self.reportsPerSite), "\(use)")
        for (index, counts) in use where index != bySite {
            #expect(counts.scans == 0 && counts.entries == 0, "\(index) read by the trigger: \(use)")
        }
        let tableScans = try connection.scalar("SELECT pg_stat_get_xact_numscans('reports'::regclass)").int
        #expect(tableScans == 0, "reports read whole \(tableScans ?? -1) times")

        // The function's statements, planned now (still no statistics) with the function's settings, as
        // PL/pgSQL plans them: custom plans for a site's values, then perhaps one generic plan.
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            try connection.execute("SET LOCAL \(parts[0]) = '\(parts.count > 1 ? parts[1] : "")'")
        }
        let site = Int64(Self.reportedEvery * Self.thirdEvery)
        let refresh = Migration27SiteStanding.triggerRefresh
            .replacingOccurrences(of: "site_before", with: "$1").replacingOccurrences(of: "site_after", with: "$2")
        for (number, statement) in Self.statements(refresh).enumerated() {
            try connection.execute("PREPARE site_standing_\(number) (bigint, bigint) AS \(statement)")
            for mode in ["force_custom_plan", "force_generic_plan"] {
                try connection.execute("SET LOCAL plan_cache_mode = \(mode)")
                for values in ["NULL, \(site)", "\(site), \(site + 2)"] {
                    let json = try connection.query(
                        "EXPLAIN (FORMAT JSON) EXECUTE site_standing_\(number) (\(values))"
                    ).map { $0.values[0].string ?? "" }.joined()
                    let plan = try Self.nodes(json)
                    let what = "statement \(number), \(mode), (\(values)): \(plan)"
                    let reportIndexes = plan.compactMap(\.index).filter { use[$0] != nil }
                    #expect(!plan.contains { $0.relation == "reports" && $0.type == "Seq Scan" }, "\(what)")
                    #expect(reportIndexes.allSatisfy { $0 == bySite }, "\(what)")
                    if number == 0 { #expect(reportIndexes.count == 6, "\(what)") }
                }
            }
        }
    }

    /// SQLite's triggers run `refresh` with the site in `NEW.site_id` or `OLD.site_id`: each statement's
    /// correlated subqueries search `reports_site_time` by the site, on a database never analysed.
    @Test func site07TriggerReadsASitesReportsBySiteOnSQLite() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stores = try Stores.sqlite(path: folder + "/har.sqlite")
        stores.close()
        let database = try Database(path: folder + "/har.sqlite", create: false)
        let triggers = try database.query(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'reports_site_standing_%'")
        #expect(triggers.count == 3)
        for which in ["id = ?", "id IN (?, ?)"] {
            let refresh = Migration27SiteStanding.refresh(which)
            let written = which.replacingOccurrences(of: "?, ?", with: "OLD.site_id, NEW.site_id")
                .replacingOccurrences(of: "= ?", with: "= NEW.site_id")
            #expect(
                triggers.contains { ($0.values[1].string ?? "").contains(Migration27SiteStanding.refresh(written)) })
            for statement in Self.statements(refresh) {
                let parameters = Array(repeating: SQLValue.integer(1), count: statement.filter { $0 == "?" }.count)
                let steps = try database.query("EXPLAIN QUERY PLAN " + statement, parameters).map {
                    $0.values[3].string ?? ""
                }
                let reads = steps.filter { $0.hasPrefix("SEARCH r ") || $0.hasPrefix("SCAN r") }
                #expect(
                    reads.allSatisfy { $0.hasPrefix("SEARCH r USING INDEX reports_site_time (site_id=?") }, "\(steps)")
                if statement.contains("cur_condition = (") { #expect(reads.count == 6, "\(steps)") }
            }
        }
    }
}
