import SQLiteStorage

/// An import's batches written on the import's one connection, inside its one transaction: each batch's
/// existing sites read by reference in one statement, the new ones inserted in one, the changed ones
/// updated one by one; unchanged ones are left as they are (their `updated_at` too).
final class SQLSiteImportSink<Connection: SQLConnection>: SiteImportSink {
    let db: Connection
    let now: Double
    private(set) var counts = SiteImportCounts()

    init(db: Connection, now: Double) {
        self.db = db
        self.now = now
    }

    func upsert(_ batch: [NewSite]) throws {
        guard !batch.isEmpty else { return }
        let references = Array(Set(batch.compactMap(\.reference)))
        var existing: [String: Site] = [:]
        if !references.isEmpty {
            let marks = Array(repeating: "?", count: references.count).joined(separator: ", ")
            for row in try db.query(
                "SELECT \(SiteStatements.columns) FROM sites s WHERE s.reference IN (\(marks))",
                references.map { .text($0) })
            {
                let site = try SiteStatements.site(row)
                if let reference = site.reference { existing[reference] = site }
            }
        }
        // A reference given twice in the file: the later one wins, counted as an update of the first.
        var inserts: [String: NewSite] = [:]
        var order: [String] = []
        for new in batch {
            guard let reference = new.reference else {
                throw StoreError(.invariant, "an imported site without a reference")
            }
            if let site = existing[reference] {
                if Self.same(site, new) {
                    counts.unchanged += 1
                } else {
                    try update(site.id, new)
                    existing[reference] = Self.updated(site, new)
                    counts.updated += 1
                }
            } else if let pending = inserts[reference] {
                if pending == new { counts.unchanged += 1 } else { counts.updated += 1 }
                inserts[reference] = new
            } else {
                inserts[reference] = new
                order.append(reference)
                counts.added += 1
            }
        }
        try insert(order.compactMap { inserts[$0] })
    }

    private func insert(_ sites: [NewSite]) throws {
        guard !sites.isEmpty else { return }
        let row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let rows = Array(repeating: row, count: sites.count).joined(separator: ", ")
        _ = try db.run(
            """
            INSERT INTO sites (reference, name, designation, grade, lat, lon, outline, source, created_at, updated_at)
            VALUES \(rows)
            """, sites.flatMap { SiteStatements.values($0) + [.real(now), .real(now)] })
    }

    private func update(_ id: Int64, _ new: NewSite) throws {
        _ = try db.run(
            """
            UPDATE sites SET name = ?, designation = ?, grade = ?, lat = ?, lon = ?, outline = ?, updated_at = ?
            WHERE id = ?
            """,
            [
                .text(new.name), SQLValue(new.designation), SQLValue(new.grade), .real(new.latitude),
                .real(new.longitude), SQLValue(new.outline), .real(now), .integer(id),
            ])
    }

    static func same(_ site: Site, _ new: NewSite) -> Bool {
        site.name == new.name && site.designation == new.designation && site.grade == new.grade
            && site.latitude == new.latitude && site.longitude == new.longitude && site.outline == new.outline
    }

    static func updated(_ site: Site, _ new: NewSite) -> Site {
        var site = site
        site.name = new.name
        site.designation = new.designation
        site.grade = new.grade
        site.latitude = new.latitude
        site.longitude = new.longitude
        site.outline = new.outline
        return site
    }
}
