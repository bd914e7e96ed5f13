/// One compiled template. Compile once (a `TemplateLibrary` does it at start), render many times.
public struct Template: Sendable {
    public let name: String
    let nodes: [Node]
    private let sourceLength: Int

    /// Compiles `source`; `name` appears in errors.
    public init(name: String, source: String) throws {
        self.name = name
        self.nodes = try Parser.parse(source, name: name)
        self.sourceLength = source.utf8.count
    }

    /// Renders with no partials available (`{{> x}}` throws); use `TemplateLibrary` for pages.
    public func render(_ context: MustacheValue) throws -> String {
        try render(context, partials: [:], maximumPartialDepth: 0)
    }

    func render(_ context: MustacheValue, partials: [String: Template], maximumPartialDepth: Int) throws -> String {
        // Pages are mostly template text plus rows; twice the source is a fair first guess.
        var renderer = Renderer(
            context: context, partials: partials, maximumPartialDepth: maximumPartialDepth,
            capacity: sourceLength * 2)
        try renderer.render(nodes, template: name)
        return renderer.output
    }

    /// Every `{{> name}}` in the template with its line, for checking at load time.
    var partialReferences: [(name: String, line: Int)] {
        var references: [(name: String, line: Int)] = []
        func collect(_ nodes: [Node]) {
            for node in nodes {
                switch node.kind {
                case .partial(let name, _): references.append((name, node.line))
                case .section(_, let children, _): collect(children)
                case .text, .variable: break
                }
            }
        }
        collect(nodes)
        return references
    }
}
