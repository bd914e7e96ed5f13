import Basics
import HTTPServer

/// `GET /api/sites/near?lat=…&lon=…` (SITE-02): the register's sites around a point, for the device to
/// keep (core/sites.js) so that the submission page can offer them offline: at most `limit` within
/// `radius`, nearest first, each with what a pick fills in and its designation's label in the user's
/// language. Signed-in users only; a point that is not one is a 400 in the user's language.
enum SitesNearRoute {
    static let radius = 5000.0
    static let limit = 200

    struct NearSite: Encodable {
        var id: Int64
        var name: String
        var designation: String
        var designationLabel: String
        var grade: String
        var lat: Double
        var lon: Double
    }

    struct Answer: Encodable {
        var radius: Double
        var sites: [NearSite]
    }

    static func register(on group: inout RouteGroup<Web>) {
        let web = group.gate
        group.route("GET", "/api/sites/near", access: .api) { request, context in
            _ = try context.requireUser()
            guard let latitude = request.queryValue("lat").flatMap({ Double(String($0.prefix(32))) }),
                let longitude = request.queryValue("lon").flatMap({ Double(String($0.prefix(32))) }),
                latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
            else {
                return web.jsonError(
                    "bad_point", context.messages["submit.site.badPoint"], status: 400, context: context)
            }
            let near = try web.stores.siteReview.sitesNear(
                latitude: latitude, longitude: longitude, metres: radius, limit: limit)
            let sites = near.compactMap { entry -> NearSite? in
                guard let lat = entry.site.latitude, let lon = entry.site.longitude else { return nil }
                return NearSite(
                    id: entry.site.id, name: entry.site.name, designation: entry.site.designation ?? "",
                    designationLabel: ReviewLabels.code("designation", entry.site.designation, context.messages),
                    grade: entry.site.grade ?? "", lat: lat, lon: lon)
            }
            return web.json(Answer(radius: radius, sites: sites), context: context)
        }
    }
}
