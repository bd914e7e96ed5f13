/// Walks a node tree once, writing UTF-8 bytes into a single buffer.
///
/// Bytes rather than a String: the page ends up as a response body of bytes anyway, and each
/// String.append cost a few hundred instructions (about 760 of them per page of 50 rows, a third
/// of the render in callgrind), where appending bytes to an array is a bounds check and a memcpy.
struct Renderer: ~Copyable {
    private(set) var output: OutputBuffer
    private var stack: [MustacheValue]
    private let partials: [String: Template]
    private let maximumPartialDepth: Int
    private var partialDepth = 0
    /// Whitespace to put before each line of the partial being rendered (empty almost always).
    private var indent: [UInt8] = []
    private var atLineStart = true

    init(context: MustacheValue, partials: [String: Template], maximumPartialDepth: Int, capacity: Int) {
        stack = [context]
        self.partials = partials
        self.maximumPartialDepth = maximumPartialDepth
        output = OutputBuffer(capacity: capacity)
    }

    /// The page rendered, as bytes.
    consuming func finish() -> [UInt8] { output.bytes() }

    mutating func render(_ nodes: [Node], template: String) throws {
        var index = 0
        while index < nodes.count {
            let node = nodes[index]
            index += 1
            switch node.kind {
            case .text(let text):
                if indent.isEmpty {
                    output.append(text)
                } else {
                    appendIndenting(text)
                }
            case .variable(let path, let escaped):
                let value = lookUp(path)
                if !indent.isEmpty, atLineStart {
                    output.append(indent)
                    atLineStart = false
                }
                append(value, escaped: escaped)
            case .section(let path, let children, let inverted):
                let value = lookUp(path)
                if inverted {
                    if !value.isTruthy { try render(children, template: template) }
                } else if case .array(let elements) = value {
                    var element = 0
                    while element < elements.count {
                        stack.append(elements[element])
                        try render(children, template: template)
                        stack.removeLast()
                        element += 1
                    }
                } else if value.isTruthy {
                    stack.append(value)
                    try render(children, template: template)
                    stack.removeLast()
                }
            case .partial(let name, let partialIndent):
                guard let partial = partials[name] else {
                    throw MustacheError(.unknownPartial(name), template: template, line: node.line)
                }
                guard partialDepth < maximumPartialDepth else {
                    throw MustacheError(.partialDepthExceeded(maximumPartialDepth), template: template, line: node.line)
                }
                let outerIndent = indent
                partialDepth += 1
                indent += partialIndent
                if !partialIndent.isEmpty { atLineStart = true }
                try render(partial.nodes, template: partial.name)
                indent = outerIndent
                partialDepth -= 1
            }
        }
    }

    /// Spec lookup: the first name is searched from the innermost context outwards; the rest of a
    /// dotted name is resolved inside what was found, never by searching outer contexts again.
    /// Indices rather than `for frame in stack.reversed()`: iterating copies each frame (a retain and
    /// a release per frame per tag, most of the render's retain/release traffic in perf).
    private func lookUp(_ path: Path) -> MustacheValue {
        guard let first = path.components.first else { return stack.last ?? .null }
        var found: MustacheValue?
        var frame = stack.count - 1
        while frame >= 0 {
            if let value = Renderer.value(first, in: stack[frame]) {
                found = value
                break
            }
            frame -= 1
        }
        guard var current = found else { return .null }
        var component = 1
        while component < path.components.count {
            guard let value = Renderer.value(path.components[component], in: current) else { return .null }
            current = value
            component += 1
        }
        return current
    }

    /// A key's value in a frame. Small dictionaries are searched key by key, which beats hashing the
    /// name (callgrind: Hasher seed, combine and finalize were most of a lookup).
    private static func value(_ key: String, in frame: MustacheValue) -> MustacheValue? {
        switch frame {
        case .fields(let fields): return fields[key]
        case .dictionary(let dictionary):
            guard dictionary.count <= 8 else { return dictionary[key] }
            for (name, value) in dictionary where name == key { return value }
            return nil
        default: return nil
        }
    }

    private mutating func append(_ value: MustacheValue, escaped: Bool) {
        switch value {
        case .string(let text):
            if escaped { appendEscapingHTML(text, to: &output) } else { output.append(contentsOf: text.utf8) }
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number): output.append(contentsOf: String(number).utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        // Containers have no text form; printing Swift's debug description would leak structure.
        case .null, .array, .dictionary, .fields: break
        }
    }

    /// Template text inside an indented partial: the indent goes before every line it starts.
    private mutating func appendIndenting(_ text: [UInt8]) {
        var lineStart = 0
        while lineStart < text.count {
            if atLineStart { output.append(indent) }
            let newline = text[lineStart...].firstIndex(of: UInt8(ascii: "\n"))
            let lineEnd = newline.map { $0 + 1 } ?? text.count
            output.append(contentsOf: text[lineStart..<lineEnd])
            atLineStart = newline != nil
            lineStart = lineEnd
        }
    }
}
