import Basics

/// The features of a GeoJSON FeatureCollection (RFC 7946), read one at a time from the file: the
/// collection's other members are checked (`type`) or passed over, a declared `crs` other than WGS 84
/// longitude/latitude refuses the file, and each feature becomes a `SiteRecord` numbered from 1.
struct GeoJSONSites {
    let reader: JSONStreamReader

    /// The names GDAL and others give WGS 84 in longitude, latitude order (and EPSG:4326, which GDAL
    /// writes that way too).
    static let wgs84 = [
        "urn:ogc:def:crs:ogc:1.3:crs84", "urn:ogc:def:crs:ogc::crs84", "http://www.opengis.net/def/crs/ogc/1.3/crs84",
        "epsg:4326", "urn:ogc:def:crs:epsg::4326", "http://www.opengis.net/def/crs/epsg/0/4326",
    ]

    func read(_ each: (SiteRecord) throws -> Void) throws {
        do {
            try reader.beginObject()
        } catch let error as JSONStreamError {
            throw SiteImportFailure.file("not a GeoJSON FeatureCollection: \(error)")
        }
        var type: String?
        var features = false
        while let key = try reader.nextKey() {
            switch key {
            case "type":
                guard case .string(let name) = try reader.value(), name == "FeatureCollection" else {
                    throw SiteImportFailure.file(
                        "not a GeoJSON FeatureCollection (its type is not \"FeatureCollection\")")
                }
                type = name
            case "crs":
                try Self.check(crs: try reader.value())
            case "features":
                guard try reader.nextIsArray() else { throw SiteImportFailure.file("\"features\" is not an array") }
                try reader.beginArray()
                var number = 0
                while try reader.nextElement() {
                    number += 1
                    let feature: JSONValue
                    do {
                        feature = try reader.value()
                    } catch let error as JSONStreamError {
                        throw SiteImportFailure.record(unit: "feature", number: number, reason: Self.reason(error))
                    }
                    try each(try Self.record(feature, number: number))
                }
                features = true
            default:
                try reader.skipValue()
            }
        }
        try reader.end()
        guard type != nil else { throw SiteImportFailure.file("not a GeoJSON FeatureCollection (no type)") }
        guard features else { throw SiteImportFailure.file("the FeatureCollection has no \"features\"") }
    }

    static func reason(_ error: JSONStreamError) -> String {
        if case .tooManyValues = error {
            return "too large: \(error) (an outline may have at most \(SiteGeometry.maxVertices) vertices)"
        }
        return error.description
    }

    /// Refuses a file in another coordinate reference system, naming the conversion.
    static func check(crs: JSONValue) throws {
        if crs == .null { return }
        var name = "(unnamed)"
        if case .object(let members) = crs, case .object(let properties)? = members["properties"],
            case .string(let given)? = properties["name"]
        {
            name = given
            if wgs84.contains(given.lowercased()) { return }
        }
        throw SiteImportFailure.file(
            "the file declares the coordinate reference system \(name); sites are read in WGS 84 longitude, "
                + "latitude (RFC 7946). Convert it first: ogr2ogr -t_srs EPSG:4326 -f GeoJSON converted.geojson FILE")
    }

    static func record(_ feature: JSONValue, number: Int) throws -> SiteRecord {
        func failure(_ reason: String) -> SiteImportFailure {
            .record(unit: "feature", number: number, reason: reason)
        }
        guard case .object(let members) = feature, members["type"] == .string("Feature") else {
            throw failure("not a GeoJSON Feature")
        }
        var properties: [String: JSONValue] = [:]
        switch members["properties"] {
        case .object(let given)?:
            for (key, value) in given { properties[key.lowercased()] = value }
        case .null?, nil: break
        default: throw failure("its properties are not an object")
        }
        guard let geometry = members["geometry"], geometry != .null else { throw failure("it has no geometry") }
        do {
            let shape = try SiteGeometry(geometry)
            return SiteRecord(
                number: number, unit: "feature", properties: properties, latitude: shape.latitude,
                longitude: shape.longitude, outline: shape.outline)
        } catch SiteGeometry.Failure.reason(let reason) {
            throw failure(reason)
        }
    }
}
