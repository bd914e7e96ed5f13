import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `har kiosk`: kiosks from the command line (KIO-01, KIO-07), on the data folder's database, also while
/// `har serve` runs. Audited as the operator `cli:$USER`. `create` prints the one-time enrolment URL
/// (ten minutes, once) on its last line.
enum KioskCommand {
    static let usage = """
        Usage:
          har kiosk [--config FILE] create --site SITE [--lat X --lon Y] [--radius METRES]
                                           [--account EMAIL] [--base-url URL]
                     a kiosk for a site: SITE is a site of the register (its reference, or its number
                     as 12 or #12), else a new site's name (entered in the register when --lat and
                     --lon are given); every report of the kiosk belongs to the site. Its reports go
                     up with EMAIL's platform account (a coordinator who has signed in; else link one
                     on /review/kiosks); prints the enrolment URL last
          har kiosk [--config FILE] account ID EMAIL
                     the kiosk sends with its own platform account EMAIL: the password is read from
                     standard input (one line); only the platform's session is kept
          har kiosk [--config FILE] list       every kiosk with its health and its site of the register
          har kiosk [--config FILE] revoke ID  the kiosk's tablet is refused from its next request
        """

    static func main(_ arguments: [String]) -> Int32 {
        Command.runOnStores(arguments, usage: usage) { action, stores, configuration in
            try run(
                action, store: stores.kiosks, configuration: configuration, actor: Command.operatorActor,
                now: Date().timeIntervalSince1970, register: (stores.sites, stores.siteReview))
        }
    }

    /// The value after `name` in `arguments`, if any.
    static func option(_ name: String, _ arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    static func run(
        _ action: [String], store: any KioskStore, configuration: Configuration, actor: String, now: Double,
        register: (sites: any SiteStore, review: any SiteReviewStore)? = nil
    ) throws -> Int32 {
        switch action.first {
        case "create":
            return try create(
                Array(action.dropFirst()), store: store, configuration: configuration, actor: actor, now: now,
                register: register)
        case "account":
            return try account(
                Array(action.dropFirst()), store: store, configuration: configuration, actor: actor, now: now,
                password: { TerminalPassword.read(prompt: "Password of the kiosk's account (not shown): ") })
        case "list" where action.count == 1:
            print(
                "id\tsite\tstate\tlast seen\treports today\twaiting for review\tapp version\taccount\tsite of the register"
            )
            let dayStart = (now / 86_400).rounded(.down) * 86_400
            for summary in try store.kiosks(dayStart: dayStart, now: now) {
                let kiosk = summary.kiosk
                let state = kiosk.isRevoked ? "revoked" : kiosk.enrolledAt == nil ? "not enrolled" : "enrolled"
                let account = accountShown(summary)
                let site = try register.flatMap {
                    try KioskSite.of(kiosk: kiosk.id, sites: $0.sites, review: $0.review)
                }
                print(
                    "\(kiosk.id)\t\(kiosk.siteName)\t\(state)\t\(kiosk.lastSeenAt.map { ISO8601.utc(seconds: $0) } ?? "-")"
                        + "\t\(summary.reportsToday)\t\(summary.waitingForReview)\t\(kiosk.appVersion ?? "-")\t\(account)"
                        + "\t\(site.map(registerSiteShown) ?? "-")"
                )
            }
            return 0
        case "revoke" where action.count == 2:
            guard let id = Int64(action[1]) else {
                Command.printError("not a kiosk id: \(action[1])")
                return 64
            }
            guard try store.revoke(id: id, actor: actor, now: now) else {
                Command.printError("no kiosk \(id) to revoke (unknown, or revoked already)")
                return 1
            }
            print("kiosk \(id) revoked")
            return 0
        default:
            print(usage)
            return 64
        }
    }

    static func create(
        _ arguments: [String], store: any KioskStore, configuration: Configuration, actor: String, now: Double,
        register: (sites: any SiteStore, review: any SiteReviewStore)? = nil
    )
        throws -> Int32
    {
        guard let site = option("--site", arguments).map({ Text.trimmed($0) }), !site.isEmpty,
            site.count <= 200, !Text.hasControlCharacters(site)
        else {
            Command.printError("--site NAME is required (at most 200 characters)")
            return 64
        }
        let latitude = option("--lat", arguments).map { Double($0) }
        let longitude = option("--lon", arguments).map { Double($0) }
        if latitude == .some(nil) || longitude == .some(nil) || (latitude == nil) != (longitude == nil)
            || !(-90...90).contains(latitude.flatMap { $0 } ?? 0)
            || !(-180...180).contains(longitude.flatMap { $0 } ?? 0)
        {
            Command.printError("--lat and --lon go together, in degrees (-90…90, -180…180)")
            return 64
        }
        let radius = option("--radius", arguments).map { Double($0) } ?? 100
        guard let radius, (10...10_000).contains(radius) else {
            Command.printError("--radius is in metres, 10 to 10000")
            return 64
        }
        var userID: Int64?
        if let email = option("--account", arguments) {
            guard let id = try store.userID(email: email) else {
                Command.printError(
                    "\(email) has never signed in here: sign in once, or link an account on /review/kiosks")
                return 1
            }
            userID = id
        }
        let place =
            try register.map {
                try KioskSite.resolve(
                    site, latitude: latitude.flatMap { $0 }, longitude: longitude.flatMap { $0 }, sites: $0.sites,
                    now: now)
            } ?? KioskSite.Resolved(name: site, latitude: latitude.flatMap { $0 }, longitude: longitude.flatMap { $0 })
        let id = try store.create(
            NewKiosk(
                siteName: place.name, latitude: place.latitude, longitude: place.longitude, radiusMetres: radius,
                userID: userID),
            actor: actor, now: now)
        if let siteID = place.siteID, let register {
            try register.review.linkKiosk(id, toSite: siteID)
            print("site \(siteID) of the register\(place.isNew ? " (new)" : ""): \(place.name)")
        } else {
            print("not a site of the register (give --lat and --lon to enter it): its reports belong to no site")
        }
        let token = WebSessions.newToken()
        guard let hash = WebSessions.hash(token: token),
            try store.issueEnrolment(
                kioskID: id, tokenHash: hash, expiresAt: now + KioskSettings.enrolmentSeconds, actor: actor, now: now)
        else { throw StoreError(.invariant, "enrolment token not recorded") }
        print("kiosk \(id) created for \(place.name)")
        if userID == nil {
            print("no platform account yet: a coordinator links theirs on /review/kiosks before visitors can report")
        }
        print("enrolment link, valid 10 minutes, once (open it on the tablet):")
        print(baseURL(arguments, configuration) + "/kiosk/enrol#" + token)
        return 0
    }

    /// A site of the register as `har kiosk list` names it: `#12 AB-9 Abbey Ruins` (SITE-03).
    static func registerSiteShown(_ site: Site) -> String {
        "#\(site.id)" + (site.reference.map { " " + $0 } ?? "") + " " + site.name
    }

    /// The kiosk's account and, when it cannot be used, why (REV-12).
    static func accountShown(_ summary: KioskSummary) -> String {
        guard let email = summary.accountEmail else { return "none" }
        if summary.kiosk.dedicatedAccount != nil {
            if summary.accountRefused { return email + " (own account, refused by the platform: kiosk not ready)" }
            if !summary.accountSignedIn { return email + " (own account, session ended: kiosk not ready)" }
            return email + " (own account)"
        }
        if !summary.accountHoldsRole { return email + " (no coordinator's role: kiosk not ready, reports wait)" }
        return summary.accountSignedIn ? email : email + " (signed out: reports wait)"
    }

    /// `--base-url`, else the site's public address (`Configuration.publicBaseURL`).
    static func baseURL(_ arguments: [String], _ configuration: Configuration) -> String {
        option("--base-url", arguments).map(Configuration.withoutTrailingSlash) ?? configuration.publicBaseURL
    }
}
