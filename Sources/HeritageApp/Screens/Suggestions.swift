#if canImport(Glibc)
    import Glibc
#endif

extension DraftStore {
    /// Names of reports known here (the user's own, including those the platform listed and the list
    /// keeps locally) within `radius` metres of any photo of the draft, nearest first.
    func suggestions(draft: Draft, radius: Double = 250) throws -> [String] {
        let points = try photos(reportID: draft.id).compactMap { photo -> (Double, Double)? in
            guard let latitude = photo.latitude, let longitude = photo.longitude else { return nil }
            return (latitude, longitude)
        }
        guard !points.isEmpty else { return [] }
        var nearest: [String: Double] = [:]
        for place in try namedPlaces(userID: draft.userID, limit: 5000) {
            let distance =
                points.map { Geo.distance($0.0, $0.1, place.latitude, place.longitude) }.min() ?? .infinity
            if distance <= radius, distance < nearest[place.name, default: .infinity] {
                nearest[place.name] = distance
            }
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
