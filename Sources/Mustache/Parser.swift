/// Turns template source into a node tree, applying the spec's standalone-line rule: a section,
/// inverted, close, partial or comment tag alone on its line (only whitespace around it) removes
/// the whole line, so templates can be indented without leaving blank lines in the HTML.
struct Parser {
    private let bytes: [UInt8]
    private let name: String
    private var line = 1
    private var lineStart = 0
    /// Bytes of the source already scanned for newlines.
    private var scanned = 0
    private var lastTagEnd = -1

    private struct OpenSection {
        let path: Path
        let inverted: Bool
        let line: Int
        var children: [Node] = []
    }

    /// The node list being filled: the template's top level or the innermost open section.
    private var root: [Node] = []
    private var openSections: [OpenSection] = []

    init(source: String, name: String) {
        bytes = Array(source.utf8)
        self.name = name
    }

    static func parse(_ source: String, name: String) throws -> [Node] {
        var parser = Parser(source: source, name: name)
        return try parser.parse()
    }

    private func error(_ reason: MustacheError.Reason, line: Int) -> MustacheError {
        MustacheError(reason, template: name, line: line)
    }

    private mutating func parse() throws -> [Node] {
        var textStart = 0
        var position = 0
        while let tagStart = find([0x7B, 0x7B], from: position) {  // "{{"
            advanceLines(to: tagStart)
            let tagLine = line
            let triple = tagStart + 2 < bytes.count && bytes[tagStart + 2] == 0x7B
            let closing: [UInt8] = triple ? [0x7D, 0x7D, 0x7D] : [0x7D, 0x7D]
            let contentStart = tagStart + (triple ? 3 : 2)
            guard let closeStart = find(closing, from: contentStart) else {
                throw error(.unclosedTag, line: tagLine)
            }
            let tagEnd = closeStart + closing.count
            var content = String(decoding: bytes[contentStart..<closeStart], as: UTF8.self)
            var sigil: Character? = triple ? "{" : nil
            if !triple, let first = content.first, "#^/>!=&{".contains(first) {
                sigil = first
                content.removeFirst()
            }
            if sigil == "=" { throw error(.delimiterChangeUnsupported, line: tagLine) }
            let canStandAlone = sigil.map { "#^/>!".contains($0) } ?? false

            var next = tagEnd
            var textEnd = tagStart
            var indent: [UInt8] = []
            if canStandAlone, let lineEnd = standaloneLineEnd(tagStart: tagStart, tagEnd: tagEnd) {
                textEnd = lineStart
                indent = Array(bytes[lineStart..<tagStart])
                next = lineEnd
            }
            appendText(from: textStart, to: textEnd)
            advanceLines(to: next)
            lastTagEnd = tagEnd
            position = next
            textStart = next

            if sigil == "!" { continue }
            let trimmed = content.trimmingWhitespace()
            guard !trimmed.isEmpty else { throw error(.emptyTag, line: tagLine) }
            guard !trimmed.contains(where: \.isWhitespace) else { throw error(.invalidName(trimmed), line: tagLine) }
            if sigil == ">" {
                append(Node(kind: .partial(name: trimmed, indent: indent), line: tagLine))
                continue
            }
            guard let path = Path(trimmed) else { throw error(.invalidName(trimmed), line: tagLine) }
            switch sigil {
            case "#", "^":
                openSections.append(OpenSection(path: path, inverted: sigil == "^", line: tagLine))
            case "/":
                guard let open = openSections.popLast() else {
                    throw error(.unexpectedClose(trimmed), line: tagLine)
                }
                guard open.path.text == path.text else {
                    throw error(.mismatchedClose(expected: open.path.text, found: path.text), line: tagLine)
                }
                append(
                    Node(kind: .section(open.path, children: open.children, inverted: open.inverted), line: open.line))
            case "{", "&":
                append(Node(kind: .variable(path, escaped: false), line: tagLine))
            default:
                append(Node(kind: .variable(path, escaped: true), line: tagLine))
            }
        }
        appendText(from: textStart, to: bytes.count)
        if let unclosed = openSections.last {
            throw error(.unclosedSection(unclosed.path.text), line: unclosed.line)
        }
        return root
    }

    /// Where the line after a standalone tag begins, or nil when the tag shares its line with
    /// text or another tag.
    private func standaloneLineEnd(tagStart: Int, tagEnd: Int) -> Int? {
        guard lastTagEnd < lineStart else { return nil }
        guard bytes[lineStart..<tagStart].allSatisfy(Parser.isBlank) else { return nil }
        var index = tagEnd
        while index < bytes.count, Parser.isBlank(bytes[index]) { index += 1 }
        if index == bytes.count { return index }
        if bytes[index] == 0x0A { return index + 1 }
        if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
        return nil
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private mutating func advanceLines(to end: Int) {
        while scanned < end {
            if bytes[scanned] == 0x0A {
                line += 1
                lineStart = scanned + 1
            }
            scanned += 1
        }
    }

    private mutating func appendText(from start: Int, to end: Int) {
        guard start < end else { return }
        // Line numbers of text are not needed for errors; the tag's line is close enough.
        append(Node(kind: .text(Array(bytes[start..<end])), line: line))
    }

    private mutating func append(_ node: Node) {
        if openSections.isEmpty {
            root.append(node)
        } else {
            openSections[openSections.count - 1].children.append(node)
        }
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

extension String {
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
