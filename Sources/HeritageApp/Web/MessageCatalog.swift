import FoundationEssentials
import Mustache

/// The languages pages are offered in. English is the fallback for everything.
enum Language: String, Sendable, CaseIterable {
    case en, fr

    /// Picks the language for a request: the `har_lang` cookie (the user's own choice, made with the
    /// switch), else the best `Accept-Language` entry we offer, else English.
    static func negotiate(cookie: String?, acceptLanguage: String?) -> Language {
        if let cookie, let chosen = Language(rawValue: cookie) { return chosen }
        guard let acceptLanguage else { return .en }
        // RFC 9110 §12.5.4: comma-separated ranges, each with an optional ";q=" weight (0 = not wanted).
        var best: (language: Language, weight: Double)?
        for entry in acceptLanguage.split(separator: ",").prefix(32) {
            let parts = entry.split(separator: ";").map { Text.trimmed(String($0)) }
            guard let range = parts.first?.lowercased(), !range.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            guard weight > 0, weight <= 1 else { continue }
            let primary = String(range.split(separator: "-").first ?? "")
            guard let language = Language(rawValue: primary) else { continue }
            // Equal weights keep the earlier entry: the browser's own order breaks ties.
            if best == nil || weight > (best?.weight ?? 0) { best = (language, weight) }
        }
        return best?.language ?? .en
    }
}

/// One language's messages, loaded from `Templates/messages/<lang>.json` (nested objects of strings).
/// Templates read them as `{{t.signin.title}}`; Swift code as `messages["signin.title"]`.
struct Messages: Sendable {
    let language: Language
    /// The whole tree, handed to templates as `t`.
    let tree: MustacheValue
    let flat: [String: String]

    /// The message at a dotted key. A missing key shows the key itself, so a gap is visible, never a crash
    /// (and the catalogue test keeps the languages in step).
    subscript(_ key: String) -> String { flat[key] ?? key }

    /// The message with `{name}` placeholders replaced; a placeholder without a value stays as written.
    ///
    /// One pass over the bytes rather than a `replacing` per value: the list calls this twice per row
    /// (perf: String.replacing and its searcher were 29% of a 200-row list page). A pass also means a
    /// value that happens to contain `{other}` is never substituted again.
    func format(_ key: String, _ values: KeyValuePairs<String, String>) -> String {
        Self.fill(self[key], values)
    }

    /// `format` on a message already looked up (a page that fills one message per row looks it up once).
    static func fill(_ template: String, _ values: KeyValuePairs<String, String>) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var output: [UInt8] = []
        output.reserveCapacity(template.utf8.count + 32)
        let bytes = Array(template.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{"),
                let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "}")),
                let value = Self.value(named: bytes[(index + 1)..<close], in: values)
            {
                output.append(contentsOf: value.utf8)
                index = close + 1
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func value(named name: ArraySlice<UInt8>, in values: KeyValuePairs<String, String>) -> String? {
        for (key, value) in values where key.utf8.elementsEqual(name) { return value }
        return nil
    }
}

/// Every language's messages, read once at start: a broken or missing catalogue stops start.
struct MessageCatalog: Sendable {
    private let byLanguage: [Language: Messages]

    init(directory: String) throws {
        var loaded: [Language: Messages] = [:]
        for language in Language.allCases {
            let path = "\(directory)/messages/\(language.rawValue).json"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("cannot read the message catalogue \(path)")
            }
            let node: CatalogNode
            do {
                node = try JSONDecoder().decode(CatalogNode.self, from: data)
            } catch {
                throw ConfigurationError("message catalogue \(path) is not valid: \(error)")
            }
            var flat: [String: String] = [:]
            node.flatten(prefix: "", into: &flat)
            loaded[language] = Messages(language: language, tree: node.mustache, flat: flat)
        }
        byLanguage = loaded
    }

    func messages(for language: Language) -> Messages {
        byLanguage[language] ?? byLanguage[.en] ?? Messages(language: .en, tree: .null, flat: [:])
    }
}

/// A catalogue is strings in nested objects; nothing else is allowed.
enum CatalogNode: Decodable, Sendable {
    case text(String)
    case group([String: CatalogNode])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .group(try container.decode([String: CatalogNode].self))
        }
    }

    /// Groups as field lists (sorted by name), not dictionaries: a template's `{{t.list.title}}` then
    /// finds each name where the program's hint says, where a dictionary hashed it with SipHash on
    /// every lookup (callgrind: ~380 instructions each, ~140 per list page).
    var mustache: MustacheValue {
        switch self {
        case .text(let text): .string(text)
        case .group(let children):
            .fields(MustacheFields(children.sorted { $0.key < $1.key }.map { ($0.key, $0.value.mustache) }))
        }
    }

    func flatten(prefix: String, into flat: inout [String: String]) {
        switch self {
        case .text(let text): flat[prefix] = text
        case .group(let children):
            for (key, child) in children {
                child.flatten(prefix: prefix.isEmpty ? key : "\(prefix).\(key)", into: &flat)
            }
        }
    }
}
