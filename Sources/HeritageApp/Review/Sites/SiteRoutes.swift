import HTTPServer

/// The coordinators' routes of the register of sites (docs/SITES.md), registered from `ReviewRoutes`
/// (whose `routes` lists them for the role sweep).
enum SiteRoutes {
    static func register(on router: inout Router, review: Review) {
        // The exports and the map before `/review/sites/:id`: of two routes matching a path, the first
        // added answers.
        SiteRegisterExports.register(on: &router, review: review)
        SiteRegisterMap.register(on: &router, review: review)
        ReportSiteSection.register(on: &router, review: review)
        SiteScreen.register(on: &router, review: review)
        SiteRegisterScreen.register(on: &router, review: review)
    }
}
