import Synchronization

/// One compiled template. Compile once (a `TemplateLibrary` does it at start), render many times.
public struct Template: Sendable {
    public let name: String
    let nodes: [Node]
    private let sourceLength: Int
    /// The size of the last page rendered from this template, to reserve the output buffer once
    /// instead of growing it by doubling (a page of rows is many times its template's source).
    private let lastOutputSize: OutputSizeHint

    /// Compiles `source`; `name` appears in errors.
    public init(name: String, source: String) throws {
        self.name = name
        self.nodes = try Parser.parse(source, name: name)
        self.sourceLength = source.utf8.count
        self.lastOutputSize = OutputSizeHint()
    }

    /// Renders with no partials available (`{{> x}}` throws); use `TemplateLibrary` for pages.
    public func render(_ context: MustacheValue) throws -> String {
        String(decoding: try renderBytes(context, partials: [:], maximumPartialDepth: 0), as: UTF8.self)
    }

    func renderBytes(_ context: MustacheValue, partials: [String: Template], maximumPartialDepth: Int) throws -> [UInt8] {
        // Pages are mostly template text plus rows; twice the source is a fair first guess.
        let capacity = max(sourceLength * 2, lastOutputSize.value.load(ordering: .relaxed) + 256)
        var renderer = Renderer(
            context: context, partials: partials, maximumPartialDepth: maximumPartialDepth, capacity: capacity)
        try renderer.render(nodes, template: name)
        // Bounded, so one huge page does not make every later render reserve megabytes.
        lastOutputSize.value.store(min(renderer.output.count, 1 << 20), ordering: .relaxed)
        return renderer.finish()
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

/// Shared by copies of a Template; a relaxed atomic, since it is only a capacity hint.
final class OutputSizeHint: Sendable {
    let value = Atomic<Int>(0)
}
