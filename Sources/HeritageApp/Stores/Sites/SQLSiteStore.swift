/// `SiteStore` on either backend (migration 25): the statements of `SiteStatements`, each method one
/// transaction of the backend's (SQLite's one writer, or PostgreSQL's SERIALIZABLE with retry).
struct SQLSiteStore<Backend: SQLBackend>: SiteStore {
    let database: Backend

    func site(id: Int64) throws -> Site? {
        try database.readStatement { db in try SiteStatements.site(db, id: id) }
    }

    func site(reference: String) throws -> Site? {
        try database.readStatement { db in try SiteStatements.site(db, reference: reference) }
    }

    func nearest(latitude: Double, longitude: Double, limit: Int, withinMeters: Double?) throws -> [SiteDistance] {
        try database.read { db in
            try SiteStatements.nearest(
                db, latitude: latitude, longitude: longitude, limit: limit, withinMeters: withinMeters,
                dialect: Backend.dialect)
        }
    }

    func create(_ site: NewSite, now: Double) throws -> Site {
        try database.write { db in try SiteStatements.create(db, site, now: now) }
    }

    func count() throws -> Int {
        try database.readStatement { db in try SiteStatements.count(db) }
    }

    func list(near: SitePoint?, limit: Int, offset: Int) throws -> [SiteListing] {
        let limit = max(limit, 0)
        let offset = max(offset, 0)
        guard let near else {
            return try database.readStatement { db in
                try SiteStatements.byName(db, limit: limit, offset: offset).map {
                    SiteListing(site: $0, distanceMeters: nil)
                }
            }
        }
        return try nearest(latitude: near.latitude, longitude: near.longitude, limit: offset + limit, withinMeters: nil)
            .dropFirst(offset).map { SiteListing(site: $0.site, distanceMeters: $0.distanceMeters) }
    }

    func importSites(now: Double, _ body: (any SiteImportSink) throws -> Void) throws -> SiteImportCounts {
        try database.write { db in
            // SQLite: the R*Tree's inserts in a national list's file order touch its nodes all over; a
            // larger page cache for the import's transaction keeps them in memory (bench/sites: a third
            // less CPU for 400,000 new sites), the connection's own size restored after.
            let kept = Backend.dialect.hasResizablePageCache ? try db.scalar("PRAGMA cache_size", []).int : nil
            if kept != nil { _ = try db.run("PRAGMA cache_size = -16384", []) }
            defer { if let kept { _ = try? db.run("PRAGMA cache_size = \(kept)", []) } }
            let sink = SQLSiteImportSink(db: db, now: now)
            try body(sink)
            return sink.counts
        }
    }

    func nearestByScan(latitude: Double, longitude: Double, limit: Int) throws -> [SiteDistance] {
        try database.read { db in
            try SiteStatements.nearestByScan(db, latitude: latitude, longitude: longitude, limit: limit)
        }
    }
}
