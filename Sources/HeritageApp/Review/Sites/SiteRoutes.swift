import HTTPServer

/// The coordinators' routes of the register of sites (docs/SITES.md), registered from `ReviewRoutes`.
enum SiteRoutes {
    static let routes: [(method: String, path: String, role: Role)] = [
        ("POST", "/review/reports/1/site", .coordinator), ("GET", "/review/sites", .coordinator),
        ("GET", "/review/sites/1", .coordinator), ("GET", "/review/sites/export.csv", .coordinator),
        ("GET", "/review/sites/export.geojson", .coordinator), ("POST", "/review/sites/export.csv", .coordinator),
        ("POST", "/review/sites/export.geojson", .coordinator),
    ]

    /// The audit log's actions of the register's pages (labels `review.action.*`, the log's filter).
    static let auditActions = ["site_attach", "site_detach", "site_create", "export_sites_csv", "export_sites_geojson"]

    static func register(on router: inout Router, review: Review) {
        ReportSiteSection.register(on: &router, review: review)
        SiteScreen.register(on: &router, review: review)
        SiteRegisterScreen.register(on: &router, review: review)
        SiteRegisterExports.register(on: &router, review: review)
    }
}
