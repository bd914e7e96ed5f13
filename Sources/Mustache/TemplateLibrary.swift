/// Every template of the application, compiled once at start and shared by all request threads.
///
/// Templates are named by their path under the directory without the extension: `list.mustache`
/// is `"list"`, `partials/header.mustache` is `"partials/header"`, and partials use the same names.
/// Loading fails on the first broken template, naming its file and line, so a bad deploy stops at
/// start instead of on the first visitor.
public final class TemplateLibrary: Sendable {
    public static let fileExtension = "mustache"
    public static let defaultMaximumPartialDepth = 32

    public let templates: [String: Template]
    public let maximumPartialDepth: Int

    /// Loads and compiles every `*.mustache` file under `directory`.
    public convenience init(directory: String, maximumPartialDepth: Int = defaultMaximumPartialDepth) throws {
        var sources: [String: (source: String, file: String)] = [:]
        for relativePath in try TemplateFiles.find(in: directory, fileExtension: Self.fileExtension) {
            let file = directory + "/" + relativePath
            let name = String(relativePath.dropLast(Self.fileExtension.count + 1))
            sources[name] = (try TemplateFiles.read(file), file)
        }
        try self.init(files: sources, maximumPartialDepth: maximumPartialDepth)
    }

    /// Compiles templates given as source text, keyed by name (handy for tests and embedded pages).
    public convenience init(sources: [String: String], maximumPartialDepth: Int = defaultMaximumPartialDepth) throws {
        try self.init(files: sources.mapValues { ($0, nil) }, maximumPartialDepth: maximumPartialDepth)
    }

    private init(files: [String: (source: String, file: String?)], maximumPartialDepth: Int) throws {
        var parsed: [(name: String, nodes: [Node])] = []
        for name in files.keys.sorted() {
            guard let (source, file) = files[name] else { continue }
            do {
                parsed.append((name, try Parser.parse(source, name: name)))
            } catch var error as MustacheError {
                error.file = file
                throw error
            }
        }
        // All templates in one program, each partial tag linked to its template: a typo in a partial
        // name fails at start, not on a page view. Tags are in template (name) and source order, so
        // the first unknown one is reported as before.
        let program = Program(templates: parsed)
        if let unknown = program.partials.first(where: { $0.target < 0 }) {
            let name = program.entries[unknown.caller].name
            throw MustacheError(
                .unknownPartial(unknown.name), template: name, file: files[name]?.file, line: unknown.line)
        }
        var templates: [String: Template] = [:]
        for (index, entry) in program.entries.enumerated() {
            templates[entry.name] = Template(
                name: entry.name, program: program, entry: index,
                sourceLength: files[entry.name]?.source.utf8.count ?? 0)
        }
        self.templates = templates
        self.maximumPartialDepth = maximumPartialDepth
    }

    public var names: [String] { templates.keys.sorted() }

    /// Renders the template called `name` with `context` as the outermost context.
    public func render(_ name: String, _ context: MustacheValue) throws -> String {
        String(decoding: try renderBytes(name, context), as: UTF8.self)
    }

    /// The same page as UTF-8 bytes, ready to be a response body without another copy.
    public func renderBytes(_ name: String, _ context: MustacheValue) throws -> [UInt8] {
        guard let template = templates[name] else {
            throw MustacheError(.unknownTemplate(name), template: name)
        }
        return try template.renderBytes(context, partialsAvailable: true, maximumPartialDepth: maximumPartialDepth)
    }
}
