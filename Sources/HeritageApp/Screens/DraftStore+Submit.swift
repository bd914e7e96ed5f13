import FoundationEssentials
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// The fields of a report as the submission form gives them, already checked (`SubmitForm`).
struct ReportFields: Sendable {
    var name: String
    var designation: String
    var condition: String
    var occupancy: String
    var priorityCategory: String
    var ownerType: String
    var grade: String
}

extension DraftStore {
    enum SubmitResult: Equatable { case queued, alreadySubmitted, noPhotos, gone }

    /// Queues the draft (SUB-06). The submit token makes it happen once: a replayed or double-clicked
    /// POST finds its token already used and changes nothing. The location is the best-accuracy fix
    /// among the photos (the first one with a fix when none says how accurate it is).
    func submit(draftLocalID: String, userID: Int64, fields: ReportFields, token: String, now: Double) throws
        -> SubmitResult
    {
        try store.write { db in
            if try db.scalar("SELECT count(*) FROM reports WHERE submit_token = ?", .text(token)).int ?? 0 > 0 {
                return .alreadySubmitted
            }
            guard
                let id = try db.scalar(
                    "SELECT id FROM reports WHERE local_id = ? AND user_id = ? AND state = 'draft'",
                    .text(draftLocalID),
                    .integer(userID)
                ).int
            else { return .gone }
            let located = try db.query(
                """
                SELECT latitude, longitude, accuracy, altitude FROM photos
                WHERE report_id = ? AND latitude IS NOT NULL AND longitude IS NOT NULL
                ORDER BY accuracy IS NULL, accuracy, position LIMIT 1
                """, .integer(id)
            ).first
            guard try db.scalar("SELECT count(*) FROM photos WHERE report_id = ?", .integer(id)).int ?? 0 > 0 else {
                return .noPhotos
            }
            _ = try db.run(
                """
                UPDATE reports SET state = 'queued', name = ?, designation = ?, condition = ?, occupancy = ?,
                    priority_category = ?, owner_type = ?, grade = ?, latitude = ?, longitude = ?, accuracy = ?,
                    altitude = ?, submitted_at = ?, submit_token = ?, updated_at = ?
                WHERE id = ? AND state = 'draft'
                """,
                [
                    .text(fields.name), .text(fields.designation), .text(fields.condition), .text(fields.occupancy),
                    .text(fields.priorityCategory), .text(fields.ownerType), .text(fields.grade),
                    try located?.value(at: 0) ?? .null, try located?.value(at: 1) ?? .null,
                    try located?.value(at: 2) ?? .null, try located?.value(at: 3) ?? .null,
                    .real(now), .text(token), .real(now), .integer(id),
                ])
            return .queued
        }
    }

    /// Names of reports known here (the user's own, including those the platform listed and the list
    /// keeps locally) within `radius` metres of any photo of the draft, nearest first.
    func suggestions(draft: Draft, radius: Double = 250) throws -> [String] {
        let points = try photos(reportID: draft.id).compactMap { photo -> (Double, Double)? in
            guard let latitude = photo.latitude, let longitude = photo.longitude else { return nil }
            return (latitude, longitude)
        }
        guard !points.isEmpty else { return [] }
        let candidates: [(String, Double, Double)] = try store.read { db in
            try db.query(
                """
                SELECT r.name, coalesce(r.latitude, p.latitude), coalesce(r.longitude, p.longitude)
                FROM reports r LEFT JOIN photos p ON p.report_id = r.id
                WHERE r.user_id = ? AND r.name IS NOT NULL AND r.name != ''
                  AND r.state NOT IN ('draft', 'cancelled', 'deleted', 'deleting')
                  AND coalesce(r.latitude, p.latitude) IS NOT NULL
                LIMIT 5000
                """, .integer(draft.userID)
            ).compactMap { row in
                guard let name = try row.string(0), let latitude = try row.double(1), let longitude = try row.double(2)
                else { return nil }
                return (name, latitude, longitude)
            }
        }
        var nearest: [String: Double] = [:]
        for (name, latitude, longitude) in candidates {
            let distance = points.map { Geo.distance($0.0, $0.1, latitude, longitude) }.min() ?? .infinity
            if distance <= radius, distance < nearest[name, default: .infinity] { nearest[name] = distance }
        }
        return nearest.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value < $1.value }.prefix(20).map(\.key)
    }
}

enum Geo {
    /// Great-circle distance in metres (haversine, mean Earth radius): ample for "within 250 m".
    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a =
            sin(dLat / 2) * sin(dLat / 2)
            + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_000 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
