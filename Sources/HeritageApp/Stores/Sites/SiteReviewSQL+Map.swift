import SQLiteStorage

/// The register's map (`/review/sites/map.geojson`): the sites of the register's filter inside a box of
/// longitudes and latitudes, asked of the engine's spatial index (SQLite's R*Tree `sites_rtree`,
/// PostgreSQL's GiST over `point(lon, lat)`, migration 25) before the filter and the standing are read,
/// so a town's view reads the town's sites, not the register. The filter is the table's
/// (`SiteReviewSQL.whereClause`), on the standing kept on each site's row.
extension SiteReviewSQL {
    /// The sites of `filter` in `box` (west ≤ east), at most `limit`, in no particular order: the id,
    /// name, point and current condition (`cur_condition`) of each.
    static func mapSites(_ filter: SiteRegisterFilter, in box: SiteSearchArea.Box, limit: Int, dialect: SQLDialect)
        -> (String, [SQLValue])
    {
        let (clause, values) = boxed(filter, box, dialect)
        return (
            "SELECT s.id, s.name, s.lat, s.lon, s.cur_condition FROM sites s WHERE \(clause) LIMIT ?",
            values + [.integer(Int64(max(0, limit)))]
        )
    }

    /// How many sites of `filter` lie in `box`, counting at most `atMost`.
    static func mapCount(_ filter: SiteRegisterFilter, in box: SiteSearchArea.Box, atMost: Int, dialect: SQLDialect)
        -> (String, [SQLValue])
    {
        let (clause, values) = boxed(filter, box, dialect)
        return (
            "SELECT count(*) FROM (SELECT 1 FROM sites s WHERE \(clause) LIMIT ?) AS matched",
            values + [.integer(Int64(max(0, atMost)))]
        )
    }

    /// The WHERE clause of the sites in `box` that pass the register's filter (the standing as kept on
    /// the site's row, migration 27), and its values.
    private static func boxed(_ filter: SiteRegisterFilter, _ box: SiteSearchArea.Box, _ dialect: SQLDialect)
        -> (String, [SQLValue])
    {
        let (filterClause, filterValues) = whereClause(filter, dialect: dialect)
        let index: String
        var values: [SQLValue]
        switch dialect.spatialIndex {
        case .rtreeTable:
            // The R*Tree keeps 32-bit boxes rounded outwards: it narrows, the BETWEENs decide.
            index =
                "s.id IN (SELECT id FROM sites_rtree "
                + "WHERE max_lon >= ? AND min_lon <= ? AND max_lat >= ? AND min_lat <= ?)"
            values = [.real(box.minLongitude), .real(box.maxLongitude), .real(box.minLatitude), .real(box.maxLatitude)]
        case .pointInBox:
            index =
                "point(s.lon, s.lat) <@ box(point(CAST(? AS double precision), CAST(? AS double precision)), "
                + "point(CAST(? AS double precision), CAST(? AS double precision)))"
            values = [.real(box.minLongitude), .real(box.minLatitude), .real(box.maxLongitude), .real(box.maxLatitude)]
        }
        values += [.real(box.minLatitude), .real(box.maxLatitude), .real(box.minLongitude), .real(box.maxLongitude)]
        return (
            "\(index) AND s.lat BETWEEN ? AND ? AND s.lon BETWEEN ? AND ? AND \(filterClause)",
            values + filterValues
        )
    }
}

/// A site on the register's map: where it is and its current condition (nil: none yet).
struct SiteMapPoint: Sendable, Equatable {
    var id: Int64
    var name: String
    var latitude: Double
    var longitude: Double
    var condition: String?
}

extension SQLSiteReviewStore {
    func mapSites(_ filter: SiteRegisterFilter, in box: SiteSearchArea.Box, limit: Int) throws -> [SiteMapPoint] {
        let (sql, values) = SiteReviewSQL.mapSites(filter, in: box, limit: limit, dialect: Backend.dialect)
        return try database.read { db in
            try db.query(sql, values).map { row in
                SiteMapPoint(
                    id: try row.int("id") ?? 0, name: try row.string("name") ?? "",
                    latitude: try row.double("lat") ?? 0, longitude: try row.double("lon") ?? 0,
                    condition: try row.string("cur_condition"))
            }
        }
    }

    func mapCount(_ filter: SiteRegisterFilter, in box: SiteSearchArea.Box, atMost: Int) throws -> Int {
        let (sql, values) = SiteReviewSQL.mapCount(filter, in: box, atMost: atMost, dialect: Backend.dialect)
        return try database.read { db in Int(try db.scalar(sql, values).int ?? 0) }
    }
}
