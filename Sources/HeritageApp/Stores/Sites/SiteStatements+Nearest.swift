import SQLiteStorage

extension SiteStatements {
    /// The first radius searched, in metres: a few sites around a point in a national register's
    /// towns. Each round that finds too few doubles it (quadruples it when the box was empty).
    static let firstRadius = 1_000.0

    /// The `limit` sites nearest the point by great-circle distance, nearest first (ties by id). The index
    /// gives the sites in a box around a circle of radius r; those within r are certain to be nearer
    /// than any site outside the circle, so once `limit` of them are found they are the answer, and
    /// otherwise the circle widens, up to `withinMeters` or the whole globe.
    static func nearest(
        _ db: some SQLConnection, latitude: Double, longitude: Double, limit: Int, withinMeters: Double?,
        dialect: SQLDialect
    ) throws -> [SiteDistance] {
        guard limit > 0, latitude.isFinite, longitude.isFinite else { return [] }
        let cap = min(withinMeters ?? SiteSearchArea.wholeEarth, SiteSearchArea.wholeEarth)
        guard cap >= 0 else { return [] }
        var radius = min(firstRadius, cap)
        while true {
            var within: [(id: Int64, distance: Double)] = []
            var seen = 0
            for box in SiteSearchArea(latitude: latitude, longitude: longitude, radius: radius).boxes {
                for point in try inBox(db, box, dialect: dialect) {
                    seen += 1
                    let distance = Geo.distance(latitude, longitude, point.latitude, point.longitude)
                    if distance <= radius { within.append((point.id, distance)) }
                }
            }
            if within.count >= limit || radius >= cap {
                let chosen = within.sorted { $0.distance == $1.distance ? $0.id < $1.id : $0.distance < $1.distance }
                    .prefix(limit)
                let rows = try sites(db, ids: chosen.map(\.id))
                return chosen.compactMap { pick in
                    rows[pick.id].map { SiteDistance(site: $0, distanceMeters: pick.distance) }
                }
            }
            radius = min(radius * (seen == 0 ? 4 : 2), cap)
        }
    }

    /// The same answer as `nearest` from a full scan of the table (no index): `bench/sites`' baseline.
    static func nearestByScan(_ db: some SQLConnection, latitude: Double, longitude: Double, limit: Int) throws
        -> [SiteDistance]
    {
        let chosen = try everyPoint(db).map { point in
            (id: point.id, distance: Geo.distance(latitude, longitude, point.latitude, point.longitude))
        }
        .sorted { $0.distance == $1.distance ? $0.id < $1.id : $0.distance < $1.distance }.prefix(limit)
        let rows = try sites(db, ids: chosen.map(\.id))
        return chosen.compactMap { pick in rows[pick.id].map { SiteDistance(site: $0, distanceMeters: pick.distance) } }
    }
}
