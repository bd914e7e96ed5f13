import HTTPServer

/// The kiosk's routes, registered once from `Application`: the "/kiosk" group, the tablet's screens let
/// in by its live credential (`Kiosks.admit`; its service worker's script and the enrolment answer
/// without one), and the "/r" group, the receipts a visitor opens on their own device (`Web.admit`).
/// The coordinators' kiosk screens are in the "/review" group (`ReviewRoutes`).
enum KioskRoutes {
    /// The visitor's routes a kiosk credential reaches (the sweep of the tests skips them).
    static let kioskPaths = ["/kiosk"]

    static func register(on router: inout Router, kiosks: Kiosks) {
        router.group("/kiosk", kiosks) { tablet in
            KioskEnrolment.register(on: &tablet)
            KioskVisitor.register(on: &tablet)
            KioskDevice.register(on: &tablet, publicDir: kiosks.settings.publicDir)
        }
        router.group("/r", kiosks.web) { receipts in
            ReceiptScreen.register(on: &receipts, kiosks: kiosks)
        }
    }
}
