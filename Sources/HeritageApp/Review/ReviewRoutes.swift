import Basics
import HTTPServer
import Mustache

/// The review's routes: the "/review" group, every route let in once by the group's admission (signed
/// in, at least a coordinator unless a route asks for an administrator: `Review.admit`), and any other
/// path under "/review" too (`unknownPathsAfterAdmission`). Registered once from `Application`.
enum ReviewRoutes {
    /// Every route of the group: method, example path and the least role, with the screen that answers
    /// it. The role sweep of the tests tries each; `ReviewRouteGroupTests` checks it is the group's table.
    static let routes: [(method: String, path: String, role: Role)] = [
        // ReviewDashboard
        ("GET", "/review", .coordinator), ("POST", "/review/bulk", .coordinator),
        ("POST", "/review/bulk/undo", .coordinator),
        // ReviewReportScreen
        ("GET", "/review/reports/1", .coordinator), ("POST", "/review/reports/1/action", .coordinator),
        ("GET", "/review/photos/00000000-0000-0000-0000-000000000000/thumb", .coordinator),
        ("GET", "/review/photos/00000000-0000-0000-0000-000000000000", .coordinator),
        // ReviewTriage
        ("GET", "/review/triage", .coordinator),
        // ReviewAuditScreen
        ("GET", "/review/audit", .coordinator), ("GET", "/review/audit.csv", .coordinator),
        ("POST", "/review/audit.csv", .coordinator),
        // ReviewExports
        ("GET", "/review/export.csv", .coordinator), ("GET", "/review/export.geojson", .coordinator),
        ("POST", "/review/export.csv", .coordinator), ("POST", "/review/export.geojson", .coordinator),
        ("GET", "/review/map.geojson", .coordinator),
        // ReviewPhotoArchive
        ("GET", "/review/export.zip", .coordinator), ("POST", "/review/export.zip", .coordinator),
        // ReviewUsersScreen
        ("GET", "/review/users", .admin), ("POST", "/review/users", .admin),
        // ReviewMailScreens
        ("GET", "/review/settings", .coordinator), ("POST", "/review/settings", .coordinator),
        ("GET", "/review/mail", .admin), ("POST", "/review/mail/1/retry", .admin),
        // KioskAdminScreen, KioskAccountScreen (Kiosk/)
        ("GET", "/review/kiosks", .coordinator), ("POST", "/review/kiosks", .coordinator),
        ("POST", "/review/kiosks/1/link", .coordinator), ("POST", "/review/kiosks/1/revoke", .coordinator),
        ("POST", "/review/kiosks/1/account", .coordinator), ("POST", "/review/kiosks/1/dedicated", .admin),
        // SiteRoutes (Review/Sites/): SiteRegisterExports, ReportSiteSection, SiteScreen, SiteRegisterScreen,
        // SiteRegisterMap
        ("GET", "/review/sites/export.csv", .coordinator), ("POST", "/review/sites/export.csv", .coordinator),
        ("GET", "/review/sites/export.geojson", .coordinator),
        ("POST", "/review/sites/export.geojson", .coordinator),
        ("POST", "/review/reports/1/site", .coordinator), ("GET", "/review/sites/1", .coordinator),
        ("GET", "/review/sites", .coordinator), ("GET", "/review/sites/map.geojson", .coordinator),
    ]

    static func register(on router: inout Router, review: Review, kiosks: Kiosks) {
        router.group("/review", review) { group in
            ReviewDashboard.register(on: &group)
            ReviewReportScreen.register(on: &group)
            ReviewTriage.register(on: &group)
            ReviewAuditScreen.register(on: &group)
            ReviewExports.register(on: &group)
            ReviewPhotoArchive.register(on: &group)
            ReviewUsersScreen.register(on: &group)
            ReviewMailScreens.register(on: &group)
            KioskAdminScreen.register(on: &group, kiosks: kiosks)
            KioskAccountScreen.register(on: &group, kiosks: kiosks)
            SiteRoutes.register(on: &group)
            group.unknownPathsAfterAdmission()
        }
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
