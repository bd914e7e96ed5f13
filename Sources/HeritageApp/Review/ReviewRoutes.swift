import Basics
import HTTPServer
import Mustache

/// Every route of the review, registered once from `Application`. `routes` lists them for the sweep of
/// the tests (anonymous, volunteer, coordinator).
enum ReviewRoutes {
    /// Method, example path and the least role; the role sweep tries each of them.
    static let routes: [(method: String, path: String, role: Role)] = [
        ("GET", "/review", .coordinator), ("GET", "/review/reports/1", .coordinator),
        ("GET", "/review/triage", .coordinator),
        ("POST", "/review/reports/1/action", .coordinator), ("POST", "/review/bulk", .coordinator),
        ("POST", "/review/bulk/undo", .coordinator),
        ("GET", "/review/audit", .coordinator), ("GET", "/review/audit.csv", .coordinator),
        ("GET", "/review/export.csv", .coordinator), ("GET", "/review/export.geojson", .coordinator),
        ("GET", "/review/map.geojson", .coordinator), ("GET", "/review/export.zip", .coordinator),
        ("POST", "/review/export.csv", .coordinator), ("POST", "/review/export.geojson", .coordinator),
        ("POST", "/review/export.zip", .coordinator), ("POST", "/review/audit.csv", .coordinator),
        ("GET", "/review/photos/00000000-0000-0000-0000-000000000000/thumb", .coordinator),
        ("GET", "/review/photos/00000000-0000-0000-0000-000000000000", .coordinator),
        ("GET", "/review/users", .admin), ("POST", "/review/users", .admin),
        // Kiosks.
        ("GET", "/review/kiosks", .coordinator), ("POST", "/review/kiosks", .coordinator),
        ("POST", "/review/kiosks/1/link", .coordinator), ("POST", "/review/kiosks/1/revoke", .coordinator),
        ("POST", "/review/kiosks/1/account", .coordinator), ("POST", "/review/kiosks/1/dedicated", .admin),
        // Sites (SiteRoutes).
        ("POST", "/review/reports/1/site", .coordinator), ("GET", "/review/sites", .coordinator),
        ("GET", "/review/sites/1", .coordinator), ("GET", "/review/sites/export.csv", .coordinator),
        ("GET", "/review/sites/export.geojson", .coordinator), ("POST", "/review/sites/export.csv", .coordinator),
        ("POST", "/review/sites/export.geojson", .coordinator), ("GET", "/review/sites/map.geojson", .coordinator),
    ]

    static func register(on router: inout Router, review: Review, drafts: Drafts) {
        ReviewDashboard.register(on: &router, review: review)
        ReviewReportScreen.register(on: &router, review: review)
        ReviewTriage.register(on: &router, review: review)
        ReviewAuditScreen.register(on: &router, review: review)
        ReviewExports.register(on: &router, review: review)
        ReviewPhotoArchive.register(on: &router, review: review)
        ReviewUsersScreen.register(on: &router, review: review)
        ReviewMailScreens.register(on: &router, review: review)
        ReporterReply.register(on: &router, review: review, drafts: drafts)
        SiteRoutes.register(on: &router, review: review)
    }

    /// What the review records once at start, before the server answers: the policy for the worker's
    /// gate, the configuration's coordinators as grants (REV-10), and the trash emptied of what has been
    /// there 30 days.
    static func startUp(_ review: Review) {
        do {
            try review.store.setPolicy(review.settings.policy)
            try review.store.syncConfigured(emails: review.settings.configuredCoordinators, now: WallClock.now())
        } catch {
            review.web.log.error("review: cannot record the review policy or the configured coordinators: \(error)")
        }
        try? ReviewActions.purge(review, now: WallClock.now())
    }
}
