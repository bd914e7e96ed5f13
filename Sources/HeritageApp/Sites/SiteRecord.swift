import Basics
import PlatformClient

/// One feature of a GeoJSON file or one row of a CSV file, before it is a site: its number (the
/// feature's, 1-based, or the CSV line's) for the error that names it, its properties by the file's own
/// names, and its point and outline once read.
struct SiteRecord {
    var number: Int
    /// "feature" or "line": how the error names `number`.
    var unit: String
    var properties: [String: JSONValue]
    var latitude: Double
    var longitude: Double
    var outline: String?

    /// The site, its fields found under the names `options` give; a `SiteImportFailure` naming the
    /// record when one is missing or not a known code.
    func site(_ options: SiteImportOptions) throws -> NewSite {
        guard let reference = text(options.referenceFields, limit: 100) else {
            throw failure("no reference (looked for \(Self.names(options.referenceFields)); see --ref-field)")
        }
        guard let name = text(options.nameFields, limit: 300) else {
            throw failure("no name (looked for \(Self.names(options.nameFields)); see --name-field)")
        }
        guard !Text.hasControlCharacters(name), !Text.hasControlCharacters(reference) else {
            throw failure("a control character in the name or reference")
        }
        let designation = try text(options.designationFields, limit: 100).map(designation)
        let grade = try text(options.gradeFields, limit: 20).map(grade)
        return NewSite(
            reference: reference, name: name, designation: designation, grade: grade, latitude: latitude,
            longitude: longitude, outline: outline, source: .import)
    }

    func failure(_ reason: String) -> SiteImportFailure { .record(unit: unit, number: number, reason: reason) }

    /// The first of `names` that the record has with a value, trimmed; numbers as they are written
    /// (a list entry number read as a JSON number is the same reference as the string).
    func text(_ names: [String], limit: Int) -> String? {
        for name in names {
            let key = name.lowercased()
            let value = properties[key] ?? properties.first { $0.key.lowercased() == key }?.value
            let shown: String? =
                switch value {
                case .string(let text): text
                case .number(let number):
                    number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
                default: nil
                }
            if let shown = shown.map({ Text.trimmed($0) }), !shown.isEmpty {
                return String(shown.prefix(limit))
            }
        }
        return nil
    }

    /// The form's designation code for a code or an English name (`LB`, `listed building`); unknown
    /// values are refused with the codes that are known.
    func designation(_ value: String) throws -> String {
        let key = value.lowercased().filter { $0.isLetter }
        for code in Designation.allCases {
            let words = Self.designationNames[code.rawValue] ?? ""
            if key == code.rawValue.lowercased() || key == words.lowercased().filter({ $0.isLetter }) {
                return code.rawValue
            }
        }
        throw failure(
            "designation \"\(value)\" is not one of "
                + Designation.allCases.map(\.rawValue).joined(separator: ", ") + " (or their names)")
    }

    /// The form's grade code (`I`, `II*`, `II`), with or without the word "Grade"; else refused.
    func grade(_ value: String) throws -> String {
        var key = value.uppercased().filter { $0 != " " }
        if key.hasPrefix("GRADE") { key.removeFirst(5) }
        let arabic = ["1": "I", "2*": "II*", "2": "II"]
        if let code = Grade(rawValue: arabic[key] ?? key) { return code.rawValue }
        throw failure("grade \"\(value)\" is not one of " + Grade.allCases.map(\.rawValue).joined(separator: ", "))
    }

    static let designationNames = [
        "LB": "Listed building", "LPW": "Listed place of worship", "SM": "Scheduled monument",
        "RGP": "Registered park or garden", "RB": "Registered battlefield", "PWS": "Protected wreck site",
        "CA": "Conservation area",
    ]

    static func names(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
}

/// Why an import was refused: a record (feature or line) that is not a site, or the file as a whole.
enum SiteImportFailure: Error, Equatable, CustomStringConvertible {
    case record(unit: String, number: Int, reason: String)
    case file(String)
    /// The reader's, when the writer gave up first (the writer's own error is the one reported).
    case cancelled

    var description: String {
        switch self {
        case .record(let unit, let number, let reason): "\(unit) \(number): \(reason)"
        case .file(let reason): reason
        case .cancelled: "stopped: the register could not be written"
        }
    }
}
