import Basics
import FoundationEssentials
import HTTPServer

/// `/review/sites/export.csv` and `/review/sites/export.geojson` (SITE-06): every site matching the
/// register's filter (its query string) with its current condition, last report date and count of
/// reports. Written as the dashboard's exports are (`ReviewExports`): keyset pages of 1,000 into a file
/// of the data folder's `exports`, streamed from disk, one export at a time per coordinator, audited.
enum SiteRegisterExports {
    static let batch = 1000

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.export("/sites/export.csv") { request, context, user, _ in
            let query = SiteRegisterQuery(request.query, now: WallClock.now())
            let file = try ExportFile(directory: review.settings.exportsDirectory, suffix: "csv")
            try file.write(CSV.byteOrderMark + CSV.line(csvHeader))
            let messages = context.messages
            try eachRow(review, query) { row in try file.write(CSV.line(csvFields(row, messages))) }
            try audit(review, user: user, action: "export_sites_csv", query: query)
            return try file.response(request, context, type: "text/csv; charset=utf-8", name: "sites.csv")
        }
        group.export("/sites/export.geojson") { request, context, user, _ in
            let query = SiteRegisterQuery(request.query, now: WallClock.now())
            let file = try ExportFile(directory: review.settings.exportsDirectory, suffix: "geojson")
            try file.write("{\"type\":\"FeatureCollection\",\"features\":[")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var first = true
            try eachRow(review, query) { row in
                try file.write(first ? "\n" : ",\n")
                try file.write(Array(try encoder.encode(Feature(row))))
                first = false
            }
            try file.write("\n]}\n")
            try audit(review, user: user, action: "export_sites_geojson", query: query)
            return try file.response(request, context, type: "application/geo+json", name: "sites.geojson")
        }
    }

    static func audit(_ review: Review, user: WebUser, action: String, query: SiteRegisterQuery) throws {
        try review.store.appendAudit(
            AuditEntry(at: WallClock.now(), actor: user.email, action: action, detail: query.queryString))
    }

    static func eachRow(_ review: Review, _ query: SiteRegisterQuery, _ body: (SiteRegisterRow) throws -> Void)
        throws
    {
        var cursor: SiteCursor?
        while true {
            let rows = try review.web.stores.siteReview.register(query.filter, after: cursor, limit: batch)
            for row in rows { try body(row) }
            guard rows.count == batch, let last = rows.last else { return }
            cursor = SiteCursor(name: last.site.name, id: last.site.id)
        }
    }

    static let csvHeader = [
        "id", "reference", "name", "designation", "grade", "latitude", "longitude", "current_condition",
        "current_priority", "previous_condition", "trend", "last_report_at", "report_count", "designation_label",
        "current_condition_label",
    ]

    static func csvFields(_ row: SiteRegisterRow, _ messages: Messages) -> [CSV.Cell] {
        let site = row.site
        let standing = row.standing
        return [
            .number(String(site.id)), .text(site.reference ?? ""), .text(site.name), .text(site.designation ?? ""),
            .text(site.grade ?? ""), .number(site.latitude.map { String($0) } ?? ""),
            .number(site.longitude.map { String($0) } ?? ""), .text(standing.condition ?? ""),
            .text(standing.priority ?? ""), .text(standing.previousCondition ?? ""),
            .text(standing.trend?.rawValue ?? ""), .text(standing.lastReportAt.map { ISO8601.utc(seconds: $0) } ?? ""),
            .number(String(standing.reportCount)),
            .text(ReviewLabels.code("designation", site.designation, messages)),
            .text(ReviewLabels.code("condition", standing.condition, messages)),
        ]
    }

    /// An RFC 7946 Feature: the site's point in [longitude, latitude] order (null without one).
    struct Feature: Encodable {
        typealias Point = GeoJSONPoint
        struct Properties: Encodable {
            var id: Int64
            var reference: String?
            var name: String
            var designation: String?
            var grade: String?
            var currentCondition: String?
            var currentPriority: String?
            var previousCondition: String?
            var trend: String?
            var lastReportAt: String?
            var reportCount: Int

            enum CodingKeys: String, CodingKey {
                case id, reference, name, designation, grade, trend
                case currentCondition = "current_condition"
                case currentPriority = "current_priority"
                case previousCondition = "previous_condition"
                case lastReportAt = "last_report_at"
                case reportCount = "report_count"
            }
        }
        var geometry: Point?
        var properties: Properties

        init(_ row: SiteRegisterRow) {
            if let latitude = row.site.latitude, let longitude = row.site.longitude {
                geometry = Point(coordinates: [longitude, latitude])
            }
            properties = Properties(
                id: row.site.id, reference: row.site.reference, name: row.site.name,
                designation: row.site.designation, grade: row.site.grade, currentCondition: row.standing.condition,
                currentPriority: row.standing.priority, previousCondition: row.standing.previousCondition,
                trend: row.standing.trend?.rawValue,
                lastReportAt: row.standing.lastReportAt.map { ISO8601.utc(seconds: $0) },
                reportCount: row.standing.reportCount)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("Feature", forKey: .type)
            if let geometry {
                try container.encode(geometry, forKey: .geometry)
            } else {
                try container.encodeNil(forKey: .geometry)
            }
            try container.encode(properties, forKey: .properties)
        }

        enum Keys: String, CodingKey { case type, geometry, properties }
    }
}
