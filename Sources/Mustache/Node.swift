/// A compiled template: text and tags, sections holding their children.
struct Node: Sendable {
    enum Kind: Sendable {
        /// UTF-8 bytes, kept as bytes: the renderer writes bytes, so text goes out with one memcpy.
        case text([UInt8])
        case variable(Path, escaped: Bool)
        case section(Path, children: [Node], inverted: Bool)
        /// `indent` is the whitespace before a standalone partial tag; it prefixes each line of the partial.
        case partial(name: String, indent: [UInt8])
    }

    let kind: Kind
    let line: Int
}

/// A dotted name split once at compile time; empty for the implicit iterator `{{.}}`.
struct Path: Sendable {
    let components: [String]
    let text: String

    init?(_ text: String) {
        self.text = text
        if text == "." {
            components = []
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else { return nil }
        components = parts
    }
}
