import SQLiteStorage

/// `SiteReviewStore`, once for both databases (`SQLBackend`). Attach, detach and a site made from a
/// report are each one write transaction with their audit row (`review_audit`, the report's id, the
/// site's before and after), so a site change is never without its record. A site's standing is kept on
/// its row by migration 27's triggers, in the same transaction as whatever changes a report of it.
struct SQLSiteReviewStore<Backend: SQLBackend>: SiteReviewStore {
    let database: Backend

    private typealias SQL = SiteReviewSQL

    func registerSite(id: Int64) throws -> RegisterSite? {
        try database.read { db in
            try db.query("SELECT \(SQL.siteColumns) FROM sites s WHERE s.id = ?", .integer(id)).first.map(SQL.site)
        }
    }

    func registerSite(reference: String) throws -> RegisterSite? {
        try database.read { db in
            try db.query(
                "SELECT \(SQL.siteColumns) FROM sites s WHERE s.reference = ? ORDER BY s.id LIMIT 1",
                .text(reference)
            ).first.map(SQL.site)
        }
    }

    /// The register's own nearest search (`SiteStatements.nearest`: the spatial index narrows, the
    /// great-circle distance decides).
    func sitesNear(latitude: Double, longitude: Double, metres: Double, limit: Int) throws
        -> [(site: RegisterSite, metres: Double)]
    {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return [] }
        return try database.read { db in
            try SiteStatements.nearest(
                db, latitude: latitude, longitude: longitude, limit: limit, withinMeters: metres,
                dialect: Backend.dialect)
        }.map { near in
            let site = near.site
            return (
                RegisterSite(
                    id: site.id, reference: site.reference, name: site.name, designation: site.designation,
                    grade: site.grade, latitude: site.latitude, longitude: site.longitude, outline: site.outline,
                    source: site.source.rawValue), near.distanceMeters
            )
        }
    }

    func standing(siteID: Int64) throws -> SiteStanding {
        try database.read { db in
            try db.query("SELECT \(SQL.standingColumns) FROM sites s WHERE s.id = ?", .integer(siteID)).first.map(
                SQL.standing) ?? SiteStanding()
        }
    }

    func register(_ filter: SiteRegisterFilter, after cursor: SiteCursor?, limit: Int) throws -> [SiteRegisterRow] {
        let (sql, values) = SQL.registerPage(filter, after: cursor, limit: limit, dialect: Backend.dialect)
        return try database.read { db in
            try db.query(sql, values).map { SiteRegisterRow(site: try SQL.site($0), standing: try SQL.standing($0)) }
        }
    }

    func registerCount(_ filter: SiteRegisterFilter, atMost: Int) throws -> Int {
        let (sql, values) = SQL.registerCount(filter, atMost: atMost, dialect: Backend.dialect)
        return try database.read { db in Int(try db.scalar(sql, values).int ?? 0) }
    }

    func attach(reportID: Int64, siteID: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db in
            guard try db.scalar("SELECT count(*) FROM sites WHERE id = ?", .integer(siteID)).int == 1 else {
                return .notFound
            }
            return try Self.setSite(db, reportID: reportID, to: siteID, action: "site_attach", actor: actor, now: now)
        }
    }

    func detach(reportID: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db in
            try Self.setSite(db, reportID: reportID, to: nil, action: "site_detach", actor: actor, now: now)
        }
    }

    func createSite(fromReport reportID: Int64, actor: String, now: Double) throws -> (ReviewOutcome, Int64?) {
        try database.write { db -> (ReviewOutcome, Int64?) in
            guard
                let report = try db.query(
                    """
                    SELECT r.name, r.designation, r.grade, r.latitude, r.longitude FROM reports r
                    WHERE r.id = ? AND \(ReviewSQL.reviewable)
                    """, .integer(reportID)
                ).first
            else { return (.notFound, nil) }
            guard let name = try report.string("name"), !name.isEmpty else {
                return (.notApplicable(state: "site_name"), nil)
            }
            guard let latitude = try report.double("latitude"), let longitude = try report.double("longitude") else {
                return (.notApplicable(state: "site_location"), nil)
            }
            guard
                let id = try db.scalar(
                    """
                    INSERT INTO sites (name, designation, grade, lat, lon, source, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, 'report', ?, ?) RETURNING id
                    """, .text(name), SQLValue(try report.string("designation")),
                    SQLValue(try report.string("grade")), .real(latitude), .real(longitude), .real(now), .real(now)
                ).int
            else { throw StoreError(.invariant, "sites: no id returned for a new site") }
            let outcome = try Self.setSite(
                db, reportID: reportID, to: id, action: "site_create", actor: actor, now: now)
            return (outcome, id)
        }
    }

    func linkKiosk(_ kioskID: Int64, toSite siteID: Int64) throws {
        try database.write { db in
            _ = try db.run("UPDATE kiosks SET site_id = ? WHERE id = ?", .integer(siteID), .integer(kioskID))
        }
    }

    func kioskSite(_ kioskID: Int64) throws -> Int64? {
        try database.read { db in try db.scalar("SELECT site_id FROM kiosks WHERE id = ?", .integer(kioskID)).int }
    }

    /// Sets the report's site and writes the audit row (the site ids before and after, the site's name).
    private static func setSite(
        _ db: Backend.Connection, reportID: Int64, to siteID: Int64?, action: String, actor: String, now: Double
    ) throws -> ReviewOutcome {
        guard
            let current = try db.query(
                "SELECT r.site_id FROM reports r WHERE r.id = ? AND \(ReviewSQL.reviewable)", .integer(reportID)
            ).first
        else { return .notFound }
        let before = try current.int("site_id")
        if before == siteID { return .notApplicable(state: siteID == nil ? "site_none" : "site_same") }
        _ = try db.run(
            "UPDATE reports SET site_id = ? WHERE id = ?", siteID.map(SQLValue.integer) ?? .null, .integer(reportID))
        let name = try siteID.flatMap { try db.scalar("SELECT name FROM sites WHERE id = ?", .integer($0)).string }
        try SQLReviewStore<Backend>.insertAudit(
            db,
            AuditEntry(
                at: now, actor: actor, action: action, reportID: reportID,
                subject: siteID.map { "site \($0)" } ?? before.map { "site \($0)" },
                before: before.map { "site \($0)" }, after: siteID.map { "site \($0)" }, detail: name))
        return .done
    }
}
