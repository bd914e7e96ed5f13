/// The coordinators' side of the register (docs/SITES.md): which site a report belongs to (attach,
/// detach, a new site made from a report, each audited with the report), a site's standing (its
/// current condition is its latest approved report's, compared with the approved one before), and the
/// register's filtered, keyset-paged view. The register itself (import, the spatial index) is
/// `SiteStore`'s; this store reads the same `sites` table and `reports.site_id`.
protocol SiteReviewStore: Sendable {
    /// One site of the register (nil: no such site).
    func registerSite(id: Int64) throws -> RegisterSite?
    /// The site with this reference (a national list's entry number), compared as written.
    func registerSite(reference: String) throws -> RegisterSite?
    /// The sites within `metres` of a point, nearest first, with their distance in metres.
    func sitesNear(latitude: Double, longitude: Double, metres: Double, limit: Int) throws
        -> [(site: RegisterSite, metres: Double)]
    /// A site's standing: current and previous approved condition, its count of reports, the last one.
    func standing(siteID: Int64) throws -> SiteStanding
    /// One page of the register in name order, after `cursor`.
    func register(_ filter: SiteRegisterFilter, after cursor: SiteCursor?, limit: Int) throws -> [SiteRegisterRow]
    /// How many sites match, counting at most `atMost`.
    func registerCount(_ filter: SiteRegisterFilter, atMost: Int) throws -> Int
    /// The sites of the filter in a box of the map (west ≤ east), at most `limit`, in no particular order.
    func mapSites(_ filter: SiteRegisterFilter, in box: SiteSearchArea.Box, limit: Int) throws -> [SiteMapPoint]
    /// How many sites of the filter lie in the box, counting at most `atMost`.
    func mapCount(_ filter: SiteRegisterFilter, in box: SiteSearchArea.Box, atMost: Int) throws -> Int
    /// The report belongs to the site from now on; audited `site_attach` in the same transaction.
    func attach(reportID: Int64, siteID: Int64, actor: String, now: Double) throws -> ReviewOutcome
    /// The report belongs to no site; audited `site_detach`.
    func detach(reportID: Int64, actor: String, now: Double) throws -> ReviewOutcome
    /// A new site of the register from the report's name, designation, grade and point (source
    /// `report`), the report attached to it; audited `site_create`. The new site's id when done.
    func createSite(fromReport reportID: Int64, actor: String, now: Double) throws -> (ReviewOutcome, Int64?)
    /// The kiosk belongs to the site: every report it files from now on does too (SITE-03).
    func linkKiosk(_ kioskID: Int64, toSite siteID: Int64) throws
    /// The site a kiosk belongs to, if any.
    func kioskSite(_ kioskID: Int64) throws -> Int64?
}

/// A site as the coordinators' pages show it.
struct RegisterSite: Sendable, Equatable {
    var id: Int64
    var reference: String?
    var name: String
    var designation: String?
    var grade: String?
    var latitude: Double?
    var longitude: Double?
    /// GeoJSON Polygon or MultiPolygon, as imported.
    var outline: String?
    var source: String?
}

/// How a site stands from its reports.
struct SiteStanding: Sendable, Equatable {
    enum Trend: String, Sendable { case worsened, improved, unchanged }
    /// The latest approved report's condition and priority, and when that report was made.
    var condition: String?
    var priority: String?
    var approvedAt: Double?
    /// The approved report's before it.
    var previousCondition: String?
    var reportCount = 0
    var lastReportAt: Double?

    /// Worse or better than the approved report before (bad < poor < fair < good); nil without two.
    var trend: Trend? {
        guard let now = condition.flatMap(Self.rank), let before = previousCondition.flatMap(Self.rank) else {
            return nil
        }
        return now < before ? .worsened : now > before ? .improved : .unchanged
    }

    static let conditionOrder = ["bad", "poor", "fair", "good"]
    static func rank(_ condition: String) -> Int? { conditionOrder.firstIndex(of: condition) }
}

struct SiteRegisterRow: Sendable, Equatable {
    var site: RegisterSite
    var standing: SiteStanding
}

/// The register's filter (`/review/sites`, its query string). Empty fields filter nothing.
struct SiteRegisterFilter: Sendable, Equatable {
    var condition: String?
    var priority: String?
    /// The current condition is worse than the one before, approved at or after this time.
    var worsenedSince: Double?
    /// No report at or after this time (never reported included).
    var notReportedSince: Double?
    var designation: String?
    /// Part of the name or the reference.
    var text = ""
    /// Only the sites with at least one report (the map's default).
    var reportedOnly = false
}

/// Where a page of the register ended: its last site's name and id.
struct SiteCursor: Sendable, Equatable {
    var name: String
    var id: Int64
}
