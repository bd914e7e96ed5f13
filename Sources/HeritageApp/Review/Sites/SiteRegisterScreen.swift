import Basics
import HTTPServer
import Mustache
import PlatformClient

/// `/review/sites` (SITE-06): the register as a table paged by name (keyset: the register may hold
/// 400,000 sites, and the page reads 50 of them with their standing), the same page's sites on a map
/// coloured by current condition, the filters in the query string, and the exports of the same filter.
enum SiteRegisterScreen {
    static let pageSize = 50
    static let countLimit = 10_000

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/sites") { request, context, _, _ in
            try page(review, context, query: SiteRegisterQuery(request.query, now: WallClock.now()))
        }
    }

    static func page(_ review: Review, _ context: WebContext, query: SiteRegisterQuery) throws -> Response {
        let store = review.web.stores.siteReview
        let messages = context.messages
        let rows = try store.register(query.filter, after: query.cursor, limit: pageSize + 1)
        let shown = Array(rows.prefix(pageSize))
        let total = try store.registerCount(query.filter, atMost: countLimit + 1)
        let filterString = query.queryString
        var next: String?
        if rows.count > pageSize, let last = shown.last {
            let after = "after=" + ReviewQuery.percentEncoded(last.site.name + "~\(last.site.id)")
            next = "/review/sites?" + [filterString, after].filter { !$0.isEmpty }.joined(separator: "&")
        }
        let values: [String: MustacheValue] = [
            "rows": .array(shown.map { row($0, messages) }),
            "total": .string(
                total > countLimit
                    ? messages.format("siteReview.matchingMore", ["count": String(countLimit)])
                    : messages.format("siteReview.matching", ["count": String(total)])),
            "next": MustacheValue(next),
            "first": MustacheValue(query.cursor == nil ? nil : "/review/sites?" + filterString),
            "query": .string(filterString),
            "filter": [
                "q": .string(query.filter.text), "worsened": .string(query.worsenedText),
                "stale": .string(query.staleMonths.map { String($0) } ?? ""),
                "reported": .bool(query.filter.reportedOnly),
            ],
            "conditionOptions": ReviewDashboard.options(
                Condition.allCases.map(\.rawValue), selected: query.filter.condition,
                prefix: "submit.codes.condition.", messages),
            "priorityOptions": ReviewDashboard.options(
                PriorityCategory.allCases.map(\.rawValue), selected: query.filter.priority,
                prefix: "submit.codes.priorityCategory.", messages),
            "designationOptions": ReviewDashboard.options(
                Designation.allCases.map(\.rawValue), selected: query.filter.designation,
                prefix: "submit.codes.designation.", messages),
            "mapPoints": .string(mapPoints(shown, messages)),
            "tiles": .string(review.settings.mapTileURL),
            "legend": .array(
                (Condition.allCases.map(\.rawValue) + ["none"]).map { code in
                    [
                        "code": .string(code),
                        "label": .string(
                            code == "none"
                                ? messages["siteReview.noCondition"]
                                : ReviewLabels.code("condition", code, messages)),
                    ]
                }),
        ]
        return try review.web.render("review-sites", title: messages["siteReview.title"], values, context: context)
    }

    static func row(_ row: SiteRegisterRow, _ messages: Messages) -> MustacheValue {
        let standing = row.standing
        return [
            "id": .string(String(row.site.id)), "name": .string(row.site.name),
            "reference": MustacheValue(row.site.reference),
            "designation": .string(ReviewLabels.code("designation", row.site.designation, messages)),
            "condition": .string(
                standing.condition.map { ReviewLabels.code("condition", $0, messages) }
                    ?? messages["siteReview.noCondition"]),
            "conditionCode": .string(standing.condition ?? "none"),
            // The letter in the table (its label, long, is on the site's page and in the filter).
            "priority": .string(standing.priority ?? ""),
            "priorityLabel": .string(ReviewLabels.code("priority_category", standing.priority, messages)),
            "trend": MustacheValue(standing.trend.flatMap { $0 == .unchanged ? nil : $0.rawValue }),
            "trendLabel": MustacheValue(
                standing.trend.flatMap { $0 == .unchanged ? nil : messages["siteReview.trendShort.\($0.rawValue)"] }),
            "lastAt": ReviewLabels.time(standing.lastReportAt),
            "count": .string(String(standing.reportCount)),
        ]
    }

    /// One site on the map, as its script reads it (`<script type="application/json">`).
    struct MapPoint: Encodable {
        var lat: Double
        var lon: Double
        var id: Int64
        var name: String
        var condition: String
        var label: String
    }

    /// The page's sites for the map (only those with a point).
    static func mapPoints(_ rows: [SiteRegisterRow], _ messages: Messages) -> String {
        ScriptJSON.encode(
            rows.compactMap { row -> MapPoint? in
                guard let lat = row.site.latitude, let lon = row.site.longitude, lat.isFinite, lon.isFinite else {
                    return nil
                }
                let label =
                    row.standing.condition.map { ReviewLabels.code("condition", $0, messages) }
                    ?? messages["siteReview.noCondition"]
                return MapPoint(
                    lat: lat, lon: lon, id: row.site.id, name: row.site.name,
                    condition: row.standing.condition ?? "none", label: label)
            })
    }
}
