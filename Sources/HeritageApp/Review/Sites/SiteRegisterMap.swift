import Basics
import HTTPServer

/// `GET /review/sites/map.geojson?bbox=WEST,SOUTH,EAST,NORTH&…` (SITE-06): the sites of the register's
/// filter (the table's query string) inside the map's visible area, for the register's map
/// (review-sites-map.js), each with its name, current condition and link. The spatial index answers the
/// box (`SiteReviewStore.mapSites`). An RFC 7946 FeatureCollection with foreign members saying how much
/// of the area it holds: `shown`, `total` (counted up to `countLimit`, `total_at_least` beyond),
/// `truncated`, and `notice`, the same in the user's language for the map to show. A view, read-only
/// and not audited, like the dashboard's map feed.
enum SiteRegisterMap {
    /// At most this many sites in one answer. A national register holds about 400,000 sites: a whole
    /// country's view would be 80 MB of JSON and as many markers. 5,000 is about 700 KB, what
    /// Leaflet.markercluster clusters at once without a pause on a modest phone, and 5,000 sites'
    /// standing is a bounded read; a coordinator zooms in to see every site of a place.
    static let featureLimit = 5_000
    /// Counting the area's sites stops here, as the register's table does (`SiteRegisterScreen`).
    static let countLimit = SiteRegisterScreen.countLimit
    /// A truncated answer is a sample spread over a grid of this many cells a side, the cells sharing
    /// `featureLimit` as evenly as their sites allow, so that the map shows the whole area thinned out
    /// rather than whichever corner the index happens to read first.
    static let gridSide = 4

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/sites/map.geojson") { request, context, _, _ in
            guard let boxes = area(request.queryValue("bbox")) else {
                return review.web.jsonError(
                    "bad_bbox", context.messages["siteReview.mapArea.badBox"], status: 400, context: context)
            }
            let query = SiteRegisterQuery(request.query, now: WallClock.now())
            return review.web.json(
                try answer(review.web.stores.siteReview, query.filter, boxes, context.messages), context: context)
        }
    }

    /// The boxes of `WEST,SOUTH,EAST,NORTH` in degrees: one, or two when west > east (the area crosses
    /// the antimeridian: west to 180, then -180 to east). Nil unless four finite numbers, longitudes
    /// within ±180, latitudes within ±90, south not above north.
    static func area(_ text: String?) -> [SiteSearchArea.Box]? {
        guard let text, text.utf8.count <= 200 else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double(Text.trimmed(String($0)))
        }
        guard parts.count == 4, let west = parts[0], let south = parts[1], let east = parts[2], let north = parts[3],
            [west, south, east, north].allSatisfy(\.isFinite), abs(west) <= 180, abs(east) <= 180,
            abs(south) <= 90, abs(north) <= 90, south <= north
        else { return nil }
        func box(_ west: Double, _ east: Double) -> SiteSearchArea.Box {
            SiteSearchArea.Box(minLongitude: west, maxLongitude: east, minLatitude: south, maxLatitude: north)
        }
        return west <= east ? [box(west, east)] : [box(west, 180), box(-180, east)]
    }

    static func answer(
        _ store: any SiteReviewStore, _ filter: SiteRegisterFilter, _ boxes: [SiteSearchArea.Box],
        _ messages: Messages
    ) throws -> Answer {
        var points: [SiteMapPoint] = []
        for box in boxes where points.count <= featureLimit {
            points += try store.mapSites(filter, in: box, limit: featureLimit + 1 - points.count)
        }
        guard points.count > featureLimit else {
            let notice = messages.format("siteReview.mapArea.all", ["count": String(points.count)])
            return Answer(points, total: points.count, atLeast: false, messages, notice: notice)
        }
        var total = 0
        for box in boxes { total += try store.mapCount(filter, in: box, atMost: countLimit + 1 - total) }
        let sample = try spread(store, filter, cells: boxes.flatMap(grid))
        let atLeast = total > countLimit
        let notice = messages.format(
            atLeast ? "siteReview.mapArea.partialMore" : "siteReview.mapArea.partial",
            ["shown": String(sample.count), "total": String(atLeast ? countLimit : total)])
        return Answer(sample, total: atLeast ? countLimit : total, atLeast: atLeast, messages, notice: notice)
    }

    /// `featureLimit` sites of the cells (all of them when they hold fewer), shared among the cells as
    /// evenly as their counts allow: a cell with fewer sites than its share gives them all and leaves
    /// the rest of its share to the others.
    static func spread(_ store: any SiteReviewStore, _ filter: SiteRegisterFilter, cells: [SiteSearchArea.Box])
        throws -> [SiteMapPoint]
    {
        let counts = try cells.map { try store.mapCount(filter, in: $0, atMost: featureLimit) }
        let shares = shares(of: featureLimit, among: counts)
        return try cells.indices.filter { shares[$0] > 0 }.flatMap { index in
            try store.mapSites(filter, in: cells[index], limit: shares[index])
        }
    }

    /// `total` shared among cells holding `counts`, each given at most its count: equal shares, and
    /// again what the filled cells could not take, until none is left or every cell is full.
    static func shares(of total: Int, among counts: [Int]) -> [Int] {
        var shares = Array(repeating: 0, count: counts.count)
        var left = total
        var open = counts.indices.filter { counts[$0] > 0 }
        while left > 0, !open.isEmpty {
            let each = max(1, left / open.count)
            for index in open where left > 0 {
                let taken = min(each, counts[index] - shares[index], left)
                shares[index] += taken
                left -= taken
            }
            open = open.filter { shares[$0] < counts[$0] }
        }
        return shares
    }

    /// The box cut into `gridSide` × `gridSide` cells that do not overlap (each takes its west and
    /// south edges, the last ones the box's east and north too, up to the next value below the edge).
    static func grid(_ box: SiteSearchArea.Box) -> [SiteSearchArea.Box] {
        let width = (box.maxLongitude - box.minLongitude) / Double(gridSide)
        let height = (box.maxLatitude - box.minLatitude) / Double(gridSide)
        func edge(_ start: Double, _ step: Double, _ index: Int, _ end: Double) -> Double {
            index == gridSide ? end : start + step * Double(index)
        }
        var cells: [SiteSearchArea.Box] = []
        for column in 0..<gridSide {
            for row in 0..<gridSide {
                let east = edge(box.minLongitude, width, column + 1, box.maxLongitude)
                let north = edge(box.minLatitude, height, row + 1, box.maxLatitude)
                cells.append(
                    SiteSearchArea.Box(
                        minLongitude: edge(box.minLongitude, width, column, box.maxLongitude),
                        maxLongitude: column + 1 == gridSide ? east : east.nextDown,
                        minLatitude: edge(box.minLatitude, height, row, box.maxLatitude),
                        maxLatitude: row + 1 == gridSide ? north : north.nextDown))
            }
        }
        return cells
    }

    /// The answer: a GeoJSON FeatureCollection and how much of the area it holds.
    struct Answer: Encodable {
        typealias Point = GeoJSONPoint
        struct Properties: Encodable {
            var name: String
            /// The current condition's code (`none`: no approved report yet), for the dot's colour.
            var condition: String
            /// The same in the user's language, for the dot's popup.
            var label: String
            var url: String
        }
        struct Feature: Encodable {
            var type = "Feature"
            var id: Int64
            var geometry: Point
            var properties: Properties
        }

        var type = "FeatureCollection"
        var features: [Feature]
        var shown: Int
        var total: Int
        var totalAtLeast: Bool
        var truncated: Bool
        var limit = SiteRegisterMap.featureLimit
        var notice: String

        enum CodingKeys: String, CodingKey {
            case type, features, shown, total, truncated, limit, notice
            case totalAtLeast = "total_at_least"
        }

        init(_ points: [SiteMapPoint], total: Int, atLeast: Bool, _ messages: Messages, notice: String) {
            features = points.map { point in
                Feature(
                    id: point.id, geometry: Point(coordinates: [point.longitude, point.latitude]),
                    properties: Properties(
                        name: point.name, condition: point.condition ?? "none",
                        label: point.condition.map { ReviewLabels.code("condition", $0, messages) }
                            ?? messages["siteReview.noCondition"],
                        url: "/review/sites/\(point.id)"))
            }
            shown = points.count
            self.total = total
            totalAtLeast = atLeast
            truncated = points.count < total
            self.notice = notice
        }
    }
}
