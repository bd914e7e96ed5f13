/// The register of heritage sites (docs/SITES.md): each a name, a reference in a national list, the
/// submission form's designation and grade, a point and an optional outline. Reports, drafts and kiosks
/// belong to a site through their `site_id`. One implementation over both engines (`SQLSiteStore`).
protocol SiteStore: Sendable {
    func site(id: Int64) throws -> Site?
    /// The site with that national list reference, nil when none has it.
    func site(reference: String) throws -> Site?
    /// The sites nearest the point, nearest first, at most `limit`, by great-circle distance; only those
    /// within `withinMeters` when given. The spatial index narrows, the distance decides.
    func nearest(latitude: Double, longitude: Double, limit: Int, withinMeters: Double?) throws -> [SiteDistance]
    /// A new site (a coordinator's, a kiosk's, one made from a report); `conflict` when its reference is
    /// another site's already.
    func create(_ site: NewSite, now: Double) throws -> Site
    func count() throws -> Int
    /// A page of the register for `har sites list`: nearest first around `near` (each with its distance),
    /// else by name (distance nil).
    func list(near: SitePoint?, limit: Int, offset: Int) throws -> [SiteListing]
    /// An import in one transaction: `body` is given a sink taking batches of sites, each upserted by
    /// reference (added, updated when something changed, else unchanged). When `body` throws, nothing it
    /// gave is kept. `body` may run more than once (PostgreSQL runs a transaction again after a
    /// serialization failure): it must start from the beginning (reopen its file) each time.
    func importSites(now: Double, _ body: (any SiteImportSink) throws -> Void) throws -> SiteImportCounts
    /// `nearest`'s answer from a full scan of the register, without the index: the baseline that
    /// `bench/sites` measures the index against (`har sites nearest --scan`), not for pages.
    func nearestByScan(latitude: Double, longitude: Double, limit: Int) throws -> [SiteDistance]
}

/// Where an import's batches go, inside the import's one transaction.
protocol SiteImportSink {
    /// Upserts `batch` by reference (every site of an import has one); the counts so far grow.
    func upsert(_ batch: [NewSite]) throws
}

/// A site of the register.
struct Site: Sendable, Equatable {
    var id: Int64
    /// The national list's entry number; nil for a site made here (from a report, by a coordinator).
    var reference: String?
    var name: String
    /// The submission form's designation code (`LB`, `SM`, …), nil when not known.
    var designation: String?
    /// The submission form's grade code (`I`, `II*`, `II`), nil when not known.
    var grade: String?
    var latitude: Double
    var longitude: Double
    /// A GeoJSON Polygon or MultiPolygon geometry as JSON text (WGS 84 longitude, latitude), or nil.
    var outline: String?
    var source: SiteSource
    var createdAt: Double
    var updatedAt: Double
}

/// A site to be written: `create`'s argument and an import's row.
struct NewSite: Sendable, Equatable {
    var reference: String?
    var name: String
    var designation: String?
    var grade: String?
    var latitude: Double
    var longitude: Double
    var outline: String?
    var source: SiteSource = .import
}

/// Where a site came from.
enum SiteSource: String, Sendable, Equatable, CaseIterable {
    /// `har sites import`.
    case `import`
    /// Made from a volunteer's report by a coordinator.
    case report
    /// Made with a kiosk.
    case kiosk
    /// Made by a coordinator by hand.
    case coordinator
}

/// A point, in degrees (WGS 84).
struct SitePoint: Sendable, Equatable {
    var latitude: Double
    var longitude: Double
}

/// A site with its great-circle distance, in metres, from the point asked about.
struct SiteDistance: Sendable, Equatable {
    var site: Site
    var distanceMeters: Double
}

/// A row of `har sites list`: a site, with its distance when the list is around a point.
struct SiteListing: Sendable, Equatable {
    var site: Site
    var distanceMeters: Double?
}

/// What an import did.
struct SiteImportCounts: Sendable, Equatable {
    var added = 0
    var updated = 0
    var unchanged = 0

    var total: Int { added + updated + unchanged }
}
