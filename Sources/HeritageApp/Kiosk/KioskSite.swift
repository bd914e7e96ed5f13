/// A kiosk's site of the register (SITE-03), for `har kiosk create --site` and `/review/kiosks`: the
/// text names a site of the register by its reference or its number (`12` or `#12`); otherwise it is a
/// new site's name, which enters the register (source `kiosk`) when a point is given. The kiosk takes
/// the site's name and, unless given one, its point; every report of the kiosk then belongs to the site
/// (`SQLDraftStatements.submit` sets it from `kiosks.site_id`).
enum KioskSite {
    struct Resolved: Equatable {
        var siteID: Int64?
        var name: String
        var latitude: Double?
        var longitude: Double?
        /// Made now, for this kiosk.
        var isNew = false
    }

    static func resolve(
        _ text: String, latitude: Double?, longitude: Double?, sites: any SiteStore, now: Double
    ) throws -> Resolved {
        let number = Int64(text.hasPrefix("#") ? String(text.dropFirst()) : text)
        let known = try sites.site(reference: text) ?? number.flatMap { try sites.site(id: $0) }
        if let site = known {
            return Resolved(
                siteID: site.id, name: site.name, latitude: latitude ?? site.latitude,
                longitude: longitude ?? site.longitude)
        }
        guard let latitude, let longitude else { return Resolved(name: text) }
        let made = try sites.create(
            NewSite(name: text, latitude: latitude, longitude: longitude, source: .kiosk), now: now)
        return Resolved(siteID: made.id, name: text, latitude: latitude, longitude: longitude, isNew: true)
    }

    /// The site of the register the kiosk belongs to, if any: `/review/kiosks` and `har kiosk list` name
    /// it, since the kiosk's own name may be a site's that was renamed since, or no site's at all.
    static func of(kiosk kioskID: Int64, sites: any SiteStore, review: any SiteReviewStore) throws -> Site? {
        try review.kioskSite(kioskID).flatMap { try sites.site(id: $0) }
    }
}
