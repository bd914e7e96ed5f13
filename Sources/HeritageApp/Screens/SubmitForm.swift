import HTTPServer
import Mustache
import PlatformClient

/// The submission form (SUB-02): what was typed, the messages next to each field, the code lists.
/// The server checks everything the browser does, and more (a crafted request gets the same words).
struct SubmitForm: Sendable {
    var name = ""
    var codes: [String: String] = [:]
    var errors: [String: String] = [:]
    var formError: String?
    /// The site of the register picked (SITE-02); nil: "Not in the list".
    var siteID: Int64?

    static let maximumNameLength = 200

    /// Each select: its form name, the message key of its label, and its codes in display order.
    static let selects: [(name: String, codes: [String])] = [
        ("designation", Designation.allCases.map(\.rawValue)),
        ("condition", Condition.allCases.map(\.rawValue)),
        ("occupancy", Occupancy.allCases.map(\.rawValue)),
        ("priority_category", PriorityCategory.allCases.map(\.rawValue)),
        ("owner_type", OwnerType.allCases.map(\.rawValue)),
        ("grade", Grade.allCases.map(\.rawValue)),
    ]

    init() {}

    init(request: Request) {
        // Never echo a huge value back into the page.
        name = String(Text.trimmed(request.formValue("name") ?? "").prefix(4 * Self.maximumNameLength))
        for select in Self.selects {
            codes[select.name] = String((request.formValue(select.name) ?? "").prefix(64))
        }
        siteID = request.formValue("site_id").flatMap { Int64(Text.trimmed(String($0.prefix(20)))) }.flatMap {
            $0 > 0 ? $0 : nil
        }
    }

    var isValid: Bool { errors.isEmpty && formError == nil }

    mutating func validate(_ messages: Messages, photoCount: Int) {
        if name.isEmpty {
            errors["name"] = messages["submit.errors.nameEmpty"]
        } else if name.count > Self.maximumNameLength {
            errors["name"] = messages.format("submit.errors.nameTooLong", ["max": String(Self.maximumNameLength)])
        } else if Text.hasControlCharacters(name) {
            errors["name"] = messages["submit.errors.nameControl"]
        }
        for select in Self.selects {
            let value = codes[select.name] ?? ""
            if value.isEmpty {
                errors[select.name] = messages["submit.errors.choose"]
            } else if !select.codes.contains(value) {
                errors[select.name] = messages["submit.errors.unknownCode"]
            }
        }
        if photoCount == 0 { formError = messages["submit.errors.noPhotos"] }
    }

    var fields: ReportFields {
        ReportFields(
            name: name, designation: codes["designation"] ?? "", condition: codes["condition"] ?? "",
            occupancy: codes["occupancy"] ?? "", priorityCategory: codes["priority_category"] ?? "",
            ownerType: codes["owner_type"] ?? "", grade: codes["grade"] ?? "", siteID: siteID)
    }

    /// The selects as the template shows them: label, options with human labels, the chosen one, the error.
    func selectValues(_ messages: Messages) -> MustacheValue {
        .array(
            Self.selects.map { select in
                let chosen = codes[select.name] ?? ""
                let key =
                    select.name == "priority_category"
                    ? "priorityCategory" : select.name == "owner_type" ? "ownerType" : select.name
                let options: [MustacheValue] = select.codes.map { code in
                    [
                        "value": .string(code), "label": .string(messages["submit.codes.\(key).\(code)"]),
                        "selected": .bool(code == chosen),
                    ]
                }
                return [
                    "name": .string(select.name), "id": .string("field-" + select.name.replacing("_", with: "-")),
                    "label": .string(messages["submit.fields.\(key)"]), "options": .array(options),
                    "error": MustacheValue(errors[select.name]), "nothingChosen": .bool(chosen.isEmpty),
                ]
            })
    }
}
