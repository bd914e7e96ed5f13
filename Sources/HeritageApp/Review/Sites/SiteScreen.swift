import Basics
import HTTPServer
import Mustache

/// `/review/sites/{id}` (SITE-05): a site of the register with its reports over time (condition,
/// priority, occupancy, who and when), the photos of its latest and earliest report side by side, its
/// point and outline on the map, and its current condition: the latest approved report's, marked
/// worsened or improved against the approved one before. Links to the dashboard filtered to the site.
enum SiteScreen {
    /// The most reports the timeline shows (the dashboard, filtered to the site, pages the rest).
    static let timelineLimit = 200
    static let photosEach = 4

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/sites/:id") { request, context, _, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }),
                let site = try review.web.stores.siteReview.registerSite(id: id)
            else { return ReviewReportScreen.notFound(review, context) }
            return try page(review, context, site: site)
        }
    }

    static func page(_ review: Review, _ context: WebContext, site: RegisterSite) throws -> Response {
        let messages = context.messages
        let standing = try review.web.stores.siteReview.standing(siteID: site.id)
        let filter = ReviewFilter(site: site.id, sort: .newest)
        let reports = try review.store.search(filter, after: nil, limit: timelineLimit)
        var values: [String: MustacheValue] = [
            "site": siteValues(site, messages),
            "standing": standingValues(standing, messages),
            "timeline": .array(reports.map { timelineRow($0, messages) }),
            "hasTimeline": .bool(!reports.isEmpty),
            "moreReports": .bool(standing.reportCount > reports.count),
            "dashboard": .string("/review?site=\(site.id)"),
            "tiles": .string(review.settings.mapTileURL),
            "point": MustacheValue(
                site.latitude.flatMap { lat in
                    site.longitude.flatMap { lon in lat.isFinite && lon.isFinite ? "[\(lat),\(lon)]" : nil }
                }),
            "outline": MustacheValue(site.outline),
        ]
        // The latest and the earliest report, side by side (one report: only the latest).
        if let latest = reports.first {
            var pair = [try photoColumn(review, latest, key: "siteReview.latest", messages)]
            if reports.count > 1 || standing.reportCount > reports.count {
                let earliest = try review.store.search(
                    ReviewFilter(site: site.id, sort: .oldest), after: nil, limit: 1
                ).first
                if let earliest, earliest.id != latest.id {
                    pair.append(try photoColumn(review, earliest, key: "siteReview.earliest", messages))
                }
            }
            values["comparison"] = .array(pair)
            values["hasComparison"] = .bool(true)
        }
        return try review.web.render("review-site", title: site.name, values, context: context)
    }

    static func siteValues(_ site: RegisterSite, _ messages: Messages) -> MustacheValue {
        let location = site.latitude.flatMap { lat in
            site.longitude.map {
                ReviewPresentation.decimal(lat, digits: 6) + ", " + ReviewPresentation.decimal($0, digits: 6)
            }
        }
        return [
            "id": .string(String(site.id)), "name": .string(site.name), "reference": MustacheValue(site.reference),
            "designation": MustacheValue(nonEmpty(ReviewLabels.code("designation", site.designation, messages))),
            "grade": MustacheValue(nonEmpty(ReviewLabels.code("grade", site.grade, messages))),
            "source": MustacheValue(site.source.map { messages.flat["siteReview.source.\($0)"] ?? $0 }),
            "location": MustacheValue(location),
        ]
    }

    static func standingValues(_ standing: SiteStanding, _ messages: Messages) -> MustacheValue {
        [
            "condition": MustacheValue(nonEmpty(ReviewLabels.code("condition", standing.condition, messages))),
            "conditionCode": MustacheValue(standing.condition),
            "priority": MustacheValue(nonEmpty(ReviewLabels.code("priority_category", standing.priority, messages))),
            "trend": MustacheValue(standing.trend.map { $0.rawValue }),
            "trendLabel": MustacheValue(
                standing.trend.map {
                    messages.format(
                        "siteReview.trend.\($0.rawValue)",
                        ["before": ReviewLabels.code("condition", standing.previousCondition, messages)])
                }),
            "approvedAt": ReviewLabels.time(standing.approvedAt),
            "lastAt": ReviewLabels.time(standing.lastReportAt),
            "count": .string(messages.format("siteReview.reportCount", ["count": String(standing.reportCount)])),
        ]
    }

    static func timelineRow(_ row: ReviewRow, _ messages: Messages) -> MustacheValue {
        [
            "id": .string(String(row.id)),
            "name": .string(row.name.flatMap { $0.isEmpty ? nil : $0 } ?? messages["list.noName"]),
            "at": ReviewLabels.time(row.submittedAt),
            "condition": .string(ReviewLabels.code("condition", row.condition, messages)),
            "conditionCode": .string(row.condition ?? ""),
            "priority": .string(ReviewLabels.code("priority_category", row.priorityCategory, messages)),
            "occupancy": .string(ReviewLabels.code("occupancy", row.occupancy, messages)),
            "review": .string(row.review), "reviewLabel": .string(ReviewLabels.reviewState(row.review, messages)),
            "reporter": .string(row.reporter), "origin": .string(ReviewLabels.origin(row.origin, messages)),
        ]
    }

    static func photoColumn(_ review: Review, _ row: ReviewRow, key: String, _ messages: Messages) throws
        -> MustacheValue
    {
        let photos = try review.store.photos(reportID: row.id).prefix(photosEach)
        return [
            "heading": .string(messages[key]), "id": .string(String(row.id)), "at": ReviewLabels.time(row.submittedAt),
            "condition": .string(ReviewLabels.code("condition", row.condition, messages)),
            "photos": .array(
                photos.enumerated().map { index, photo in
                    [
                        "src": .string("/review/photos/\(photo.localID)"),
                        "thumb": .string("/review/photos/\(photo.localID)/thumb"),
                        "alt": .string(
                            messages.format(
                                "siteReview.photoAlt", ["n": String(index + 1), "report": String(row.id)])),
                        "large": .bool(index == 0),
                    ]
                }),
        ]
    }

    static func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
}
