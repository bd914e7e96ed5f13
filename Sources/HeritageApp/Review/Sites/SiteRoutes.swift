import HTTPServer

/// The coordinators' routes of the register of sites (docs/SITES.md), in the "/review" group of
/// `ReviewRoutes` (whose `routes` lists them).
enum SiteRoutes {
    static func register(on group: inout RouteGroup<Review>) {
        // The exports and the map before `/review/sites/:id`: of two routes matching a path, the first added answers.
        SiteRegisterExports.register(on: &group)
        SiteRegisterMap.register(on: &group)
        ReportSiteSection.register(on: &group)
        SiteScreen.register(on: &group)
        SiteRegisterScreen.register(on: &group)
    }
}
