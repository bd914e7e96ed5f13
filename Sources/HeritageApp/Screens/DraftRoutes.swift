import Basics
import HTTPServer

/// Registers the creation, submission and photo routes (one line in `WebRoutes`). The photos folder is
/// made here, and drafts abandoned while the server was down are swept once at start.
enum DraftRoutes {
    static func register(on router: inout Router, web: Web, options: DraftOptions) {
        let drafts = Drafts(web: web, options: options)
        do { try drafts.files.prepare() } catch { web.log.info("photos folder: \(error)") }
        drafts.sweep(now: WallClock.now())
        CreateScreen.register(on: &router, web: web, drafts: drafts)
        SubmitScreen.register(on: &router, web: web, drafts: drafts)
        PhotoRoutes.register(on: &router, web: web, drafts: drafts)
    }
}
