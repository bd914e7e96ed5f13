/// An RFC 7946 Point geometry, `[longitude, latitude]`: the exports' and the register map's features.
struct GeoJSONPoint: Encodable {
    var type = "Point"
    var coordinates: [Double]
}
