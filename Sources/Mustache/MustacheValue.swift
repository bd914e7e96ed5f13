// Mustache: the template engine of the web pages. A subset of the Mustache spec (no lambdas, no
// delimiter changes), compiled once at start into node trees and rendered with HTML escaping on.

/// The data a template renders. Literals make call sites read like the page:
/// `["title": "Reports", "rows": [["name": name, "count": 3]]]`.
public enum MustacheValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([MustacheValue])
    case dictionary([String: MustacheValue])
}

extension MustacheValue {
    /// Whether a section shows (and an inverted section hides).
    ///
    /// Falsy: null, false, an empty array and an empty string. Numbers, zero included, are truthy,
    /// as in the Mustache spec; pass a Bool when a count should hide a section.
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let value): return value
        case .array(let values): return !values.isEmpty
        case .string(let value): return !value.isEmpty
        case .int, .double, .dictionary: return true
        }
    }

    public init(_ value: String?) { self = value.map(MustacheValue.string) ?? .null }
    public init(_ value: Int?) { self = value.map(MustacheValue.int) ?? .null }
    public init(_ value: Double?) { self = value.map(MustacheValue.double) ?? .null }
    public init(_ value: Bool?) { self = value.map(MustacheValue.bool) ?? .null }
    public init(_ values: [MustacheValue]) { self = .array(values) }
    public init(_ values: [String: MustacheValue]) { self = .dictionary(values) }
}

extension MustacheValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }

    /// Later duplicates of a key win, as in a Swift dictionary built by assignment.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        var dictionary: [String: MustacheValue] = [:]
        dictionary.reserveCapacity(elements.count)
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}
