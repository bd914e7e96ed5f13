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
        var templates: [String: Template] = [:]
        for name in files.keys.sorted() {
            guard let (source, file) = files[name] else { continue }
            do {
                templates[name] = try Template(name: name, source: source)
            } catch var error as MustacheError {
                error.file = file
                throw error
            }
        }
        // Partials are resolved now: a typo in a partial name fails at start, not on a page view.
        for name in templates.keys.sorted() {
            guard let template = templates[name] else { continue }
            for reference in template.partialReferences where templates[reference.name] == nil {
                throw MustacheError(
                    .unknownPartial(reference.name), template: name, file: files[name]?.file, line: reference.line)
            }
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
        return try template.renderBytes(context, partials: templates, maximumPartialDepth: maximumPartialDepth)
    }
}
