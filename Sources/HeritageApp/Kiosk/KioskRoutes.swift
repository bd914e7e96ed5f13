import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// Every kiosk route, registered once from `Application`.
enum KioskRoutes {
    /// The visitor's routes a kiosk credential reaches (the sweep of the tests skips them).
    static let kioskPaths = ["/kiosk"]

    static func register(on router: inout Router, web: Web, drafts: Drafts, settings: KioskSettings, review: Review) {
        let kiosks = Kiosks(web: web, store: web.stores.kiosks, drafts: drafts, settings: settings)
        KioskEnrolment.register(on: &router, kiosks: kiosks)
        KioskAdminScreen.register(on: &router, kiosks: kiosks, review: review)
        KioskAccountScreen.register(on: &router, kiosks: kiosks, review: review)
        KioskVisitor.register(on: &router, kiosks: kiosks)
        KioskDevice.register(on: &router, kiosks: kiosks, publicDir: settings.publicDir)
        ReceiptScreen.register(on: &router, kiosks: kiosks)
    }
}
