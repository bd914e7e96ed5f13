import Basics
import FoundationEssentials

/// Decoding helpers for what the platform sends: the contract says any field but a few may be null
/// or missing, so an optional field of an unexpected type is dropped rather than failing the whole
/// answer. Required fields still fail loudly.
extension KeyedDecodingContainer {
    /// The value if present, non-null and of the right type; else nil.
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }

    /// A string, or a number written as a string (ids are strings in the contract; tolerate numbers).
    func lenientString(_ key: Key) -> String? {
        if let text = lenient(String.self, key) { return text }
        if let number = lenient(Int64.self, key) { return String(number) }
        return nil
    }

    /// An ISO 8601 date-time with offset; nil when absent, null or unparseable.
    func lenientDate(_ key: Key) -> Date? {
        lenient(String.self, key).flatMap(ISO8601.parse)
    }

    /// A number, also when sent as a numeric string.
    func lenientDouble(_ key: Key) -> Double? {
        if let number = lenient(Double.self, key) { return number }
        return lenient(String.self, key).flatMap(Double.init)
    }

    func requiredString(_ key: Key) throws -> String {
        guard let value = lenientString(key), !value.isEmpty else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "required"))
        }
        return value
    }

    func requiredDate(_ key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = ISO8601.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not ISO 8601: \(text)")
        }
        return date
    }
}

extension KeyedEncodingContainer {
    mutating func encodeDate(_ date: Date?, forKey key: Key) throws {
        try encode(date.map(ISO8601.format), forKey: key)
    }
}
