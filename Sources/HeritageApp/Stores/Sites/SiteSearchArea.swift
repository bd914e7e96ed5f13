#if canImport(Glibc)
    import Glibc
#endif

/// The boxes of longitude and latitude that hold every point within a great-circle radius of a centre:
/// what the spatial indexes (R*Tree, GiST) can answer. The longitude half-width is the exact one of a
/// spherical cap, `asin(sin(r/R) / cos(lat))`, as in J. P. Matuschek's "Finding Points Within a
/// Distance of a Latitude/Longitude Using Bounding Coordinates" (2010); a circle over a pole takes every
/// longitude, and one over the antimeridian gives two boxes.
struct SiteSearchArea: Equatable {
    struct Box: Equatable, Sendable {
        var minLongitude: Double
        var maxLongitude: Double
        var minLatitude: Double
        var maxLatitude: Double
    }

    /// The mean Earth radius of `Geo.distance`, so that the boxes and the distances agree.
    static let earthRadius = 6_371_000.0
    /// Half the Earth's circumference: a radius that takes in the whole globe.
    static let wholeEarth = Double.pi * earthRadius

    let boxes: [Box]

    init(latitude: Double, longitude: Double, radius: Double) {
        let degrees = 180 / Double.pi
        let angular = radius / Self.earthRadius
        let minLatitude = latitude - angular * degrees
        let maxLatitude = latitude + angular * degrees
        guard angular < Double.pi, minLatitude > -90, maxLatitude < 90 else {
            boxes = [
                Box(
                    minLongitude: -180, maxLongitude: 180, minLatitude: max(minLatitude, -90),
                    maxLatitude: min(maxLatitude, 90))
            ]
            return
        }
        let ratio = sin(angular) / cos(latitude / degrees)
        guard ratio < 1 else {
            boxes = [Box(minLongitude: -180, maxLongitude: 180, minLatitude: minLatitude, maxLatitude: maxLatitude)]
            return
        }
        let half = asin(ratio) * degrees
        let west = longitude - half
        let east = longitude + half
        if west < -180 {
            boxes = [
                Box(minLongitude: west + 360, maxLongitude: 180, minLatitude: minLatitude, maxLatitude: maxLatitude),
                Box(minLongitude: -180, maxLongitude: east, minLatitude: minLatitude, maxLatitude: maxLatitude),
            ]
        } else if east > 180 {
            boxes = [
                Box(minLongitude: west, maxLongitude: 180, minLatitude: minLatitude, maxLatitude: maxLatitude),
                Box(minLongitude: -180, maxLongitude: east - 360, minLatitude: minLatitude, maxLatitude: maxLatitude),
            ]
        } else {
            boxes = [Box(minLongitude: west, maxLongitude: east, minLatitude: minLatitude, maxLatitude: maxLatitude)]
        }
    }
}
