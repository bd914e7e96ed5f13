/// Where a report's place is, as the platform stores it. Accuracy and altitude in metres.
public struct Location: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double?
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, accuracy: Double? = nil, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
    }

    /// The readable form the local platform uses for `formatted_address`: "48.85300° N, 2.34900° E".
    public var formattedCoordinates: String {
        func part(_ value: Double, _ positive: String, _ negative: String) -> String {
            let magnitude = abs(value)
            let scaled = Int((magnitude * 100_000).rounded())
            let fraction = String(scaled % 100_000)
            let padded = String(repeating: "0", count: 5 - fraction.count) + fraction
            return "\(scaled / 100_000).\(padded)° \(value < 0 ? negative : positive)"
        }
        return part(latitude, "N", "S") + ", " + part(longitude, "E", "W")
    }
}
