import Synchronization

/// One compiled template. Compile once (a `TemplateLibrary` does it at start), render many times.
public struct Template: Sendable {
    public let name: String
    /// The program holding this template, and where in it (alone, or with its library's partials).
    let program: Program
    let entry: Int
    private let sourceLength: Int
    /// The size of the last page rendered from this template, to reserve the output buffer once
    /// instead of growing it by doubling (a page of rows is many times its template's source).
    private let lastOutputSize: OutputSizeHint

    /// Compiles `source`; `name` appears in errors.
    public init(name: String, source: String) throws {
        let nodes = try Parser.parse(source, name: name)
        self.init(name: name, program: Program(templates: [(name, nodes)]), entry: 0, sourceLength: source.utf8.count)
    }

    init(name: String, program: Program, entry: Int, sourceLength: Int) {
        self.name = name
        self.program = program
        self.entry = entry
        self.sourceLength = sourceLength
        self.lastOutputSize = OutputSizeHint()
    }

    /// Renders with no partials available (`{{> x}}` throws); use `TemplateLibrary` for pages.
    public func render(_ context: MustacheValue) throws -> String {
        String(decoding: try renderBytes(context, partialsAvailable: false, maximumPartialDepth: 0), as: UTF8.self)
    }

    func renderBytes(_ context: MustacheValue, partialsAvailable: Bool, maximumPartialDepth: Int) throws -> [UInt8] {
        // Pages are mostly template text plus rows; twice the source is a fair first guess, then the
        // last page's size with a little room, so that a page rarely outgrows the array it is written in.
        let last = lastOutputSize.value.load(ordering: .relaxed)
        let capacity = max(sourceLength * 2, last + last / 16 + 256)
        var outgrown: [UInt8]?
        var size = 0
        var page = try [UInt8](unsafeUninitializedCapacity: capacity + OutputBuffer.slack) {
            storage, initializedCount in
            var renderer = Renderer(
                context: context, program: program, partialsAvailable: partialsAvailable,
                maximumPartialDepth: maximumPartialDepth, output: OutputBuffer(storage: storage))
            try renderer.render(entry: entry)
            size = renderer.output.count
            if renderer.output.outgrewStorage {
                outgrown = renderer.finish()
            } else {
                initializedCount = size
            }
        }
        // Bounded, so one huge page does not make every later render reserve megabytes.
        lastOutputSize.value.store(min(size, 1 << 20), ordering: .relaxed)
        if let outgrown { return outgrown }
        // A page much smaller than the last one is not kept in storage reserved for that one.
        if size < capacity / 2 { page = page.withUnsafeBufferPointer { Array($0) } }
        return page
    }
}

/// Shared by copies of a Template; a relaxed atomic, since it is only a capacity hint.
final class OutputSizeHint: Sendable {
    let value = Atomic<Int>(0)
}
