import FoundationEssentials

/// A JSON value that is a string, number, Boolean or null: enough for the flat configuration file and
/// for small request bodies. Arrays and objects read as `.other` (never valid where this is used).
enum JSONScalar: Decodable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .other
        }
    }
}
