import SQLiteStorage

/// The register's SQL, written once for both engines but for the spatial index's box query, which is
/// SQLite's R*Tree (`sites_rtree`) or PostgreSQL's GiST over `point(lon, lat)` (migration 25).
enum SiteStatements {
    static let columns =
        "s.id, s.reference, s.name, s.designation, s.grade, s.lat, s.lon, s.outline, s.source, s.created_at, s.updated_at"

    static func site(_ row: some SQLRowReading) throws -> Site {
        Site(
            id: try row.int("id") ?? 0, reference: try row.string("reference"), name: try row.string("name") ?? "",
            designation: try row.string("designation"), grade: try row.string("grade"),
            latitude: try row.double("lat") ?? 0, longitude: try row.double("lon") ?? 0,
            outline: try row.string("outline"),
            source: SiteSource(rawValue: try row.string("source") ?? "") ?? .import,
            createdAt: try row.double("created_at") ?? 0, updatedAt: try row.double("updated_at") ?? 0)
    }

    static func site(_ db: some SQLConnection, id: Int64) throws -> Site? {
        try db.query("SELECT \(columns) FROM sites s WHERE s.id = ?", [.integer(id)]).first.map { try site($0) }
    }

    static func site(_ db: some SQLConnection, reference: String) throws -> Site? {
        try db.query("SELECT \(columns) FROM sites s WHERE s.reference = ?", [.text(reference)]).first.map {
            try site($0)
        }
    }

    static func sites(_ db: some SQLConnection, ids: [Int64]) throws -> [Int64: Site] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        var found: [Int64: Site] = [:]
        for row in try db.query("SELECT \(columns) FROM sites s WHERE s.id IN (\(marks))", ids.map { .integer($0) }) {
            let site = try site(row)
            found[site.id] = site
        }
        return found
    }

    static func create(_ db: some SQLConnection, _ new: NewSite, now: Double) throws -> Site {
        guard
            let id = try db.scalar(
                """
                INSERT INTO sites (reference, name, designation, grade, lat, lon, outline, source, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, values(new) + [.real(now), .real(now)]
            ).int, let site = try site(db, id: id)
        else { throw StoreError(.invariant, "site missing after its insert") }
        return site
    }

    static func values(_ new: NewSite) -> [SQLValue] {
        [
            SQLValue(new.reference), .text(new.name), SQLValue(new.designation), SQLValue(new.grade),
            .real(new.latitude), .real(new.longitude), SQLValue(new.outline), .text(new.source.rawValue),
        ]
    }

    static func count(_ db: some SQLConnection) throws -> Int {
        Int(try db.scalar("SELECT count(*) FROM sites").int ?? 0)
    }

    static func byName(_ db: some SQLConnection, limit: Int, offset: Int) throws -> [Site] {
        try db.query(
            "SELECT \(columns) FROM sites s ORDER BY s.name, s.id LIMIT ? OFFSET ?",
            [.integer(Int64(limit)), .integer(Int64(offset))]
        ).map { try site($0) }
    }

    /// The ids and points of the sites in `box`, through the engine's spatial index.
    static func inBox(_ db: some SQLConnection, _ box: SiteSearchArea.Box, dialect: SQLDialect) throws -> [(
        id: Int64, latitude: Double, longitude: Double
    )] {
        let sql: String
        let parameters: [SQLValue]
        switch dialect.spatialIndex {
        case .rtreeTable:
            // Overlap, not containment: the R*Tree keeps 32-bit boxes rounded outwards.
            sql = """
                SELECT s.id, s.lat, s.lon FROM sites_rtree r JOIN sites s ON s.id = r.id
                WHERE r.max_lon >= ? AND r.min_lon <= ? AND r.max_lat >= ? AND r.min_lat <= ?
                """
            parameters = [
                .real(box.minLongitude), .real(box.maxLongitude), .real(box.minLatitude), .real(box.maxLatitude),
            ]
        case .pointInBox:
            sql = "SELECT s.id, s.lat, s.lon FROM sites s WHERE point(s.lon, s.lat) <@ box(point(?, ?), point(?, ?))"
            parameters = [
                .real(box.minLongitude), .real(box.minLatitude), .real(box.maxLongitude), .real(box.maxLatitude),
            ]
        }
        return try db.query(sql, parameters).map { row in
            (try row.int(0) ?? 0, try row.double(1) ?? 0, try row.double(2) ?? 0)
        }
    }

    /// Every site's id and point, read without the index: the baseline `bench/sites` measures against.
    static func everyPoint(_ db: some SQLConnection) throws -> [(id: Int64, latitude: Double, longitude: Double)] {
        try db.query("SELECT s.id, s.lat, s.lon FROM sites s", []).map { row in
            (try row.int(0) ?? 0, try row.double(1) ?? 0, try row.double(2) ?? 0)
        }
    }
}
