import Basics
import HTTPServer

/// Registers the creation, submission and photo routes (one line in `WebRoutes`); routes only: the
/// photos folder and the start-up sweep are `Drafts.startUp`, which `Application.start` runs.
enum DraftRoutes {
    static func register(on group: inout RouteGroup<Web>, drafts: Drafts) {
        CreateScreen.register(on: &group, drafts: drafts)
        SubmitScreen.register(on: &group, drafts: drafts)
        PhotoRoutes.register(on: &group, drafts: drafts)
        DeviceReportRoutes.register(on: &group, drafts: drafts)
        DeviceShellScreen.register(on: &group, maxFileBytes: drafts.options.maxFileBytes)
    }
}
