/// The values a route captured from a path (":id" in "/reports/:id", "*path" in "/static/*path"), read
/// like a dictionary. A route has one or two, so they are kept as pairs and found by comparing names:
/// a `[String: String]` hashed each name when the router filled it and again when a handler read it,
/// ~1,500 instructions of every request to such a route.
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    private var pairs: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The value captured under `name`; setting one replaces it, as a dictionary's subscript does.
    public subscript(name: String) -> String? {
        get { pairs.first { $0.name == name }?.value }
        set {
            let index = pairs.firstIndex { $0.name == name }
            switch (index, newValue) {
            case (let index?, let value?): pairs[index].value = value
            case (let index?, nil): pairs.remove(at: index)
            case (nil, let value?): pairs.append((name, value))
            case (nil, nil): break
            }
        }
    }

    public var isEmpty: Bool { pairs.isEmpty }
    public var count: Int { pairs.count }

    /// Equal when they hold the same names with the same values, in any order (as dictionaries are).
    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.count == rhs.count && lhs.pairs.allSatisfy { rhs[$0.name] == $0.value }
    }

    public var description: String {
        "[" + pairs.map { "\"\($0.name)\": \"\($0.value)\"" }.joined(separator: ", ") + "]"
    }
}
