import Basics

/// A GeoJSON geometry (RFC 7946: WGS 84 longitude, latitude) made into a site's point and outline:
/// a Point is the site's point; a Polygon or MultiPolygon is its outline, and its point the centroid
/// of its largest ring (by area). Each position is checked: two or three numbers, latitude within
/// ±90, longitude within ±180; each ring at least four positions, closed (its last is its first).
struct SiteGeometry: Equatable {
    var latitude: Double
    var longitude: Double
    /// The outline as compact GeoJSON, nil for a point.
    var outline: String?

    /// At most this many positions in one outline (a national list's largest are a few thousand).
    static let maxVertices = 100_000

    enum Failure: Error, Equatable { case reason(String) }

    init(_ geometry: JSONValue) throws {
        guard case .object(let members) = geometry else { throw Failure.reason("the geometry is not an object") }
        guard case .string(let type)? = members["type"] else { throw Failure.reason("the geometry has no type") }
        let coordinates = members["coordinates"] ?? .null
        switch type {
        case "Point":
            let (longitude, latitude) = try Self.position(coordinates)
            self.init(latitude: latitude, longitude: longitude, outline: nil)
        case "Polygon":
            var count = 0
            let rings = try Self.polygon(coordinates, vertices: &count)
            let point = Self.representative([rings])
            self.init(
                latitude: point.latitude, longitude: point.longitude,
                outline: #"{"type":"Polygon","coordinates":"# + Self.json(rings) + "}")
        case "MultiPolygon":
            guard case .array(let polygons) = coordinates, !polygons.isEmpty else {
                throw Failure.reason("a MultiPolygon needs an array of polygons")
            }
            var count = 0
            let all = try polygons.map { try Self.polygon($0, vertices: &count) }
            let point = Self.representative(all)
            self.init(
                latitude: point.latitude, longitude: point.longitude,
                outline: #"{"type":"MultiPolygon","coordinates":["# + all.map(Self.json).joined(separator: ",") + "]}")
        default:
            throw Failure.reason("geometry type \"\(type)\" is not taken (Point, Polygon or MultiPolygon)")
        }
    }

    init(latitude: Double, longitude: Double, outline: String?) {
        self.latitude = latitude
        self.longitude = longitude
        self.outline = outline
    }

    typealias Ring = [(longitude: Double, latitude: Double)]

    /// A position `[longitude, latitude]` or `[longitude, latitude, altitude]`, checked.
    static func position(_ value: JSONValue) throws -> (Double, Double) {
        guard case .array(let numbers) = value, numbers.count == 2 || numbers.count == 3 else {
            throw Failure.reason("a position is not [longitude, latitude]")
        }
        guard case .number(let longitude) = numbers[0], case .number(let latitude) = numbers[1] else {
            throw Failure.reason("coordinates are not numbers")
        }
        try checked(latitude: latitude, longitude: longitude)
        return (longitude, latitude)
    }

    static func checked(latitude: Double, longitude: Double) throws {
        guard (-90...90).contains(latitude) else {
            throw Failure.reason("latitude \(shown(latitude)) is outside -90…90")
        }
        guard (-180...180).contains(longitude) else {
            throw Failure.reason("longitude \(shown(longitude)) is outside -180…180")
        }
    }

    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func polygon(_ value: JSONValue, vertices: inout Int) throws -> [Ring] {
        guard case .array(let rings) = value, !rings.isEmpty else {
            throw Failure.reason("a polygon needs an array of rings")
        }
        return try rings.map { ring in
            guard case .array(let positions) = ring, positions.count >= 4 else {
                throw Failure.reason("a polygon's ring needs at least four positions")
            }
            vertices += positions.count
            guard vertices <= maxVertices else {
                throw Failure.reason("the outline has more than \(maxVertices) vertices")
            }
            let points = try positions.map(position)
            guard let first = points.first, let last = points.last, first == last else {
                throw Failure.reason("a polygon's ring does not close (its last position is not its first)")
            }
            return points.map { (longitude: $0.0, latitude: $0.1) }
        }
    }

    /// The centroid of the largest outer ring (planar, in degrees: ample for a site's extent); the mean
    /// of its positions when it has no area.
    static func representative(_ polygons: [[Ring]]) -> (latitude: Double, longitude: Double) {
        var best: (area: Double, latitude: Double, longitude: Double)?
        for polygon in polygons {
            guard let ring = polygon.first else { continue }
            var area = 0.0
            var x = 0.0
            var y = 0.0
            // Relative to the first position: the products of small differences keep their precision.
            let (originX, originY) = ring[0]
            for index in 0..<(ring.count - 1) {
                let (x0, y0) = (ring[index].longitude - originX, ring[index].latitude - originY)
                let (x1, y1) = (ring[index + 1].longitude - originX, ring[index + 1].latitude - originY)
                let cross = x0 * y1 - x1 * y0
                area += cross
                x += (x0 + x1) * cross
                y += (y0 + y1) * cross
            }
            let point: (Double, Double)
            if abs(area) > 1e-18 {
                point = (originY + y / (3 * area), originX + x / (3 * area))
            } else {
                let open = ring.dropLast()
                point = (
                    open.map(\.latitude).reduce(0, +) / Double(open.count),
                    open.map(\.longitude).reduce(0, +) / Double(open.count)
                )
            }
            if best == nil || abs(area) / 2 > (best?.area ?? 0) {
                best = (abs(area) / 2, point.0, point.1)
            }
        }
        return (best?.latitude ?? 0, best?.longitude ?? 0)
    }

    /// A polygon's rings as GeoJSON coordinates, numbers as the file gave them (shortest round trip).
    static func json(_ rings: [Ring]) -> String {
        "["
            + rings.map { ring in
                "[" + ring.map { "[\(number($0.longitude)),\(number($0.latitude))]" }.joined(separator: ",") + "]"
            }.joined(separator: ",") + "]"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
