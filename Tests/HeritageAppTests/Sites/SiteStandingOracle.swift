import Foundation
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// Stores on a fresh database of either engine with a connection of the test's own to it, to read what
/// the stores keep beside what they answer.
final class RawStoreScene {
    let scene: StoreScene
    private let rows: (String, [SQLValue]) throws -> [[SQLValue]]
    private let closeConnection: () -> Void

    init(_ backend: StoreBackend) throws {
        if backend.name == StoreBackend.postgres.name {
            let url = try PostgresCluster.shared().makeDatabase()
            scene = try StoreScene(StoreBackend(name: backend.name) { _ in try Stores.postgres(url: url, poolSize: 4) })
            let connection = try PostgresConnection(url)
            rows = { sql, values in try connection.query(sql, values).map(\.values) }
            closeConnection = { connection.close() }
        } else {
            scene = try StoreScene(backend)
            let database = try Database(path: scene.folder + "/har.sqlite", create: false)
            rows = { sql, values in try database.query(sql, values).map(\.values) }
            closeConnection = { database.close() }
        }
    }

    deinit { closeConnection() }

    func query(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] { try rows(sql, values) }

    var stores: Stores { scene.stores }
    var now: Double { scene.now }
}

/// A site's standing worked out from its reports as the register did before it was kept on the site's
/// row: correlated subqueries on `reports`, a report counting when reviewable and not in the trash, the
/// condition the latest approved report's by submission time then id, and the approved one's before it.
enum SiteStandingOracle {
    static let counted = "\(ReviewSQL.reviewable) AND r.discarded_at IS NULL"
    static let approved = "\(counted) AND r.review_state = 'approved'"

    static func latest(_ column: String, offset: Int = 0) -> String {
        "(SELECT \(column) FROM reports r WHERE r.site_id = s.id AND \(approved) "
            + "ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1\(offset > 0 ? " OFFSET \(offset)" : ""))"
    }

    static let sql = """
        SELECT \(latest("r.condition")), \(latest("r.priority_category")), \(latest("r.submitted_at")),
            \(latest("r.condition", offset: 1)),
            (SELECT count(*) FROM reports r WHERE r.site_id = s.id AND \(counted)),
            (SELECT r.submitted_at FROM reports r WHERE r.site_id = s.id AND \(counted)
                ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1)
        FROM sites s WHERE s.id = ?
        """

    /// The standing recomputed from the reports.
    static func recomputed(_ raw: RawStoreScene, site: Int64) throws -> SiteStanding {
        let row = try #require(try raw.query(sql, [.integer(site)]).first)
        return SiteStanding(
            condition: row[0].string, priority: row[1].string, approvedAt: row[2].double,
            previousCondition: row[3].string,
            reportCount: Int(row[4].int ?? 0), lastReportAt: row[5].double)
    }

    /// The standing kept on the site's row, and its `worsened_at`.
    static func stored(_ raw: RawStoreScene, site: Int64) throws -> (SiteStanding, Double?) {
        let row = try #require(
            try raw.query(
                """
                SELECT cur_condition, cur_priority, cur_at, prev_condition, report_count, last_at, worsened_at
                FROM sites WHERE id = ?
                """, [.integer(site)]
            ).first)
        return (
            SiteStanding(
                condition: row[0].string, priority: row[1].string, approvedAt: row[2].double,
                previousCondition: row[3].string, reportCount: Int(row[4].int ?? 0), lastReportAt: row[5].double),
            row[6].double
        )
    }

    /// Whether the site matches the register's filter, by the filter's meaning, from its recomputed standing.
    static func matches(_ filter: SiteRegisterFilter, _ site: RegisterSite, _ standing: SiteStanding) -> Bool {
        if let condition = filter.condition, standing.condition != condition { return false }
        if let priority = filter.priority, standing.priority != priority { return false }
        if let since = filter.worsenedSince,
            !(standing.trend == .worsened && (standing.approvedAt ?? -.infinity) >= since)
        {
            return false
        }
        if let since = filter.notReportedSince, let last = standing.lastReportAt, last >= since { return false }
        if let designation = filter.designation, site.designation != designation { return false }
        if filter.reportedOnly && standing.reportCount == 0 { return false }
        if !filter.text.isEmpty {
            let text = filter.text.lowercased()
            guard site.name.lowercased().contains(text) || (site.reference ?? "").lowercased().contains(text) else {
                return false
            }
        }
        return true
    }
}

/// A small deterministic random generator (SplitMix64), so a failing sequence is the same sequence again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
