import Basics
import HTTPServer
import Mustache

/// The volunteer's choice of site on the submission page (SITE-02): the register's sites nearest the
/// photos' locations first (name, designation, distance), "Not in the list" last. Server-rendered
/// radios, so that it works without JavaScript: then a site picked fills the name, designation and
/// grade the volunteer left empty (what they typed stays theirs); with JavaScript (site-choice.js) a
/// pick fills them at once, still editable. The report carries the site's id; the platform call is
/// unchanged (the site's name is the report's `place_name`).
enum SiteChoice {
    /// Sites within this of any photo are offered, at most `limit`.
    static let radius = 2000.0
    static let limit = 8

    static func nearest(_ store: any SiteReviewStore, photos: [DraftPhoto]) throws -> [(
        site: RegisterSite, metres: Double
    )] {
        var best: [Int64: (site: RegisterSite, metres: Double)] = [:]
        // At most five points asked about: photos of one report are taken a few metres apart.
        for photo in photos.prefix(5) {
            guard let latitude = photo.latitude, let longitude = photo.longitude else { continue }
            for near in try store.sitesNear(latitude: latitude, longitude: longitude, metres: radius, limit: limit)
            where near.metres < best[near.site.id]?.metres ?? .infinity {
                best[near.site.id] = near
            }
        }
        return best.values.sorted { $0.metres == $1.metres ? $0.site.id < $1.site.id : $0.metres < $1.metres }
            .prefix(limit).map { $0 }
    }

    /// The radios' values: each site with its labels and what a pick fills in; `chosen` checked.
    static func values(_ sites: [(site: RegisterSite, metres: Double)], chosen: Int64?, messages: Messages)
        -> MustacheValue
    {
        .array(
            sites.map { near in
                [
                    "id": .string(String(near.site.id)), "name": .string(near.site.name),
                    "designation": .string(near.site.designation ?? ""),
                    "designationLabel": .string(ReviewLabels.code("designation", near.site.designation, messages)),
                    "grade": .string(near.site.grade ?? ""),
                    "distance": .string(ReportSiteSection.distance(near.metres)),
                    "checked": .bool(near.site.id == chosen),
                ]
            })
    }

    /// A site picked (and known to the register) fills what the volunteer left empty.
    static func fill(_ form: inout SubmitForm, from store: any SiteReviewStore) throws {
        guard let id = form.siteID else { return }
        guard let site = try store.registerSite(id: id) else {
            form.siteID = nil
            return
        }
        if form.name.isEmpty { form.name = site.name }
        if (form.codes["designation"] ?? "").isEmpty, let designation = site.designation {
            form.codes["designation"] = designation
        }
        if (form.codes["grade"] ?? "").isEmpty, let grade = site.grade { form.codes["grade"] = grade }
    }
}
