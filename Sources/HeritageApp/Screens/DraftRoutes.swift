import Basics
import HTTPServer

/// Registers the creation, submission and photo routes (one line in `WebRoutes`); routes only: the
/// photos folder and the start-up sweep are `Drafts.startUp`, which `Application.start` runs.
enum DraftRoutes {
    static func register(on router: inout Router, web: Web, drafts: Drafts) {
        CreateScreen.register(on: &router, web: web, drafts: drafts)
        SubmitScreen.register(on: &router, web: web, drafts: drafts)
        PhotoRoutes.register(on: &router, web: web, drafts: drafts)
        DeviceReportRoutes.register(on: &router, web: web, drafts: drafts)
        DeviceShellScreen.register(on: &router, web: web, maxFileBytes: drafts.options.maxFileBytes)
    }
}
