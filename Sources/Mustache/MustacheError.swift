/// A template that cannot be compiled or rendered, with where the problem is.
public struct MustacheError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        case unclosedTag
        case unclosedSection(String)
        case mismatchedClose(expected: String, found: String)
        case unexpectedClose(String)
        case emptyTag
        case invalidName(String)
        case delimiterChangeUnsupported
        case unknownPartial(String)
        case unknownTemplate(String)
        case partialDepthExceeded(Int)
        case unreadable(String)
    }

    public var reason: Reason
    /// The template's name (`"partials/header"`).
    public var template: String
    /// The file it was loaded from, when it came from a directory.
    public var file: String?
    /// The 1-based line of the offending tag (for an unclosed section: where it opened).
    public var line: Int?

    public init(_ reason: Reason, template: String, file: String? = nil, line: Int? = nil) {
        self.reason = reason
        self.template = template
        self.file = file
        self.line = line
    }

    public var description: String {
        let place = [file ?? template, line.map(String.init)].compactMap { $0 }.joined(separator: ":")
        return "\(place): \(explanation)"
    }

    private var explanation: String {
        switch reason {
        case .unclosedTag: return "unclosed tag: '{{' without a matching '}}'"
        case .unclosedSection(let name): return "unclosed section {{#\(name)}}: no {{/\(name)}} before the end"
        case .mismatchedClose(let expected, let found):
            return "mismatched close tag {{/\(found)}}: the open section is {{#\(expected)}}"
        case .unexpectedClose(let name): return "close tag {{/\(name)}} without an open section"
        case .emptyTag: return "empty tag"
        case .invalidName(let name): return "invalid name '\(name)' in tag"
        case .delimiterChangeUnsupported: return "delimiter changes ({{=…=}}) are not supported"
        case .unknownPartial(let name): return "unknown partial {{> \(name)}}"
        case .unknownTemplate(let name): return "unknown template '\(name)'"
        case .partialDepthExceeded(let limit): return "partials nested deeper than \(limit) (recursive partial?)"
        case .unreadable(let message): return "cannot read template: \(message)"
        }
    }
}
