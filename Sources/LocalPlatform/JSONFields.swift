import Basics
import FoundationEssentials

extension JSONValue {
    /// Parses a request body that must be a JSON object.
    static func object(from bytes: [UInt8]) throws(Refusal) -> [String: JSONValue] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            throw .invalidArgument("the body is not valid JSON")
        }
        guard case .object(let object) = value else { throw .invalidArgument("the body must be a JSON object") }
        return object
    }
}

/// Typed access to the fields of a JSON object, each refusal naming the field.
struct JSONFields {
    let object: [String: JSONValue]

    /// Refuses fields the contract does not define: what this platform accepts, the real one must.
    func refuseUnknown(allowed: Set<String>) throws(Refusal) {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .invalidArgument("unknown field \(unknown)")
        }
    }

    func requiredString(_ name: String) throws(Refusal) -> String {
        guard case .string(let value)? = object[name] else {
            throw .invalidArgument("field \(name) is required and must be a string")
        }
        return value
    }

    func code<Code: RawRepresentable<String>>(_ name: String, _ type: Code.Type) throws(Refusal) -> Code
    where Code: CaseIterable {
        let raw = try requiredString(name)
        guard let code = Code(rawValue: raw) else {
            let allowed = Code.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidArgument("field \(name) must be one of \(allowed)")
        }
        return code
    }

    func optionalBool(_ name: String) throws(Refusal) -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw .invalidArgument("field \(name) must be a boolean")
        }
    }

    func optionalNumber(_ name: String, in range: ClosedRange<Double>) throws(Refusal) -> Double? {
        switch object[name] {
        case nil, .null?: return nil
        case .number(let value)? where range.contains(value): return value
        default: throw .invalidArgument("field \(name) must be a number in \(range.lowerBound)…\(range.upperBound)")
        }
    }

    func requiredNumber(_ name: String, in range: ClosedRange<Double>) throws(Refusal) -> Double {
        guard let value = try optionalNumber(name, in: range) else {
            throw .invalidArgument("field \(name) is required")
        }
        return value
    }

    func optionalObject(_ name: String) throws(Refusal) -> JSONFields? {
        switch object[name] {
        case nil, .null?: return nil
        case .object(let value)?: return JSONFields(object: value)
        default: throw .invalidArgument("field \(name) must be an object")
        }
    }
}
