import Synchronization

/// One step of a compiled template: a trivial 16-byte value, so walking a template copies no
/// reference and retains nothing.
///
/// The node tree held arrays and strings in enum payloads, which `switch node.kind` copied for every
/// node rendered (callgrind: the copies of Node.Kind alone were ~3% of the rows page, before their
/// retains and releases). Instructions point into the program's side tables instead.
struct Instruction {
    enum Opcode: UInt8 {
        /// `operand` is the first byte in `Program.text`, `count` the number of bytes.
        case text
        /// `operand` is the first key in `Program.keys`, `count` the number of keys (0 for `{{.}}`).
        case escapedVariable
        case rawVariable
        /// Keys as for a variable; the section's children follow, up to `end`.
        case section
        case invertedSection
        /// `operand` is the index in `Program.partials`.
        case partial
    }

    let opcode: Opcode
    let operand: Int32
    let count: Int32
    /// For sections: the index of the first instruction after the section.
    let end: Int32
}

/// A `{{> name}}` tag: which template it renders, resolved when the program is built.
struct PartialCall {
    let name: String
    /// The index in `Program.entries`, or -1 when no template of that name was compiled with it.
    let target: Int
    /// The target's instructions (its entry's), set when the program is complete.
    var targetStart = 0
    var targetEnd = 0
    /// The whitespace before a standalone partial tag (bytes in `Program.text`): it prefixes each
    /// line of the partial.
    let indentStart: Int
    let indentCount: Int
    /// The template the tag is in (an index in `Program.entries`) and its line, for errors.
    let caller: Int
    let line: Int
}

/// Templates compiled together into one flat list of instructions, with their text, keys and
/// partial tags in side tables: a template is a range of instructions, a section the instructions
/// after it up to its `end`, and a partial tag knows the range of the template it renders, so
/// rendering a partial is a jump rather than a dictionary lookup by name (perf: Hasher in every
/// `{{> icon}}` of a list page).
///
/// The tables are allocated once here and never change (but for the hints, which are atomics), so
/// the renderer reads them through plain pointers with no bounds checks, retains or copies; the
/// class frees them when the last template using it goes.
final class Program: @unchecked Sendable {
    struct Entry {
        let name: String
        let start: Int
        let end: Int
    }

    let entries: [Entry]
    let instructions: UnsafeMutableBufferPointer<Instruction>
    /// Followed by `OutputBuffer.slack` readable bytes (zeros) past its end.
    let text: UnsafeMutableBufferPointer<UInt8>
    let keys: UnsafeMutableBufferPointer<String>
    /// Each key's fingerprint (MustacheFields.fingerprint), to skip fields that cannot match.
    let keyFingerprints: UnsafeMutableBufferPointer<UInt64>
    /// For each key, the position in a field list where it was last found (see
    /// MustacheFields.address). Shared by every render of the program: a relaxed atomic, since a
    /// hint from another thread is as good a guess as any and is always checked.
    let hints: UnsafeMutablePointer<Atomic<Int>>
    let partials: UnsafeMutableBufferPointer<PartialCall>

    /// Compiles `templates` in order; a partial tag resolves to the template of its name among them,
    /// or to none (target -1), which the renderer reports as an unknown partial.
    init(templates: [(name: String, nodes: [Node])]) {
        var builder = Builder()
        var indexByName: [String: Int] = [:]
        for (index, template) in templates.enumerated() { indexByName[template.name] = index }
        var entries: [Entry] = []
        for (index, template) in templates.enumerated() {
            let start = builder.instructions.count
            builder.compile(template.nodes, caller: index, indexByName: indexByName)
            entries.append(Entry(name: template.name, start: start, end: builder.instructions.count))
        }
        self.entries = entries
        for index in builder.partials.indices where builder.partials[index].target >= 0 {
            builder.partials[index].targetStart = entries[builder.partials[index].target].start
            builder.partials[index].targetEnd = entries[builder.partials[index].target].end
        }
        instructions = Program.copy(builder.instructions)
        // 16 bytes more, so that any text can be read 16 bytes at a time (OutputBuffer.appendText).
        let paddedText = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: builder.text.count + OutputBuffer.slack)
        paddedText.initialize(repeating: 0)
        _ = paddedText.initialize(from: builder.text)
        text = UnsafeMutableBufferPointer(rebasing: paddedText[0..<builder.text.count])
        keys = Program.copy(builder.keys)
        keyFingerprints = Program.copy(builder.keys.map(MustacheFields.fingerprint))
        hints = .allocate(capacity: max(builder.keys.count, 1))
        for index in 0..<builder.keys.count { (hints + index).initialize(to: Atomic(0)) }
        partials = Program.copy(builder.partials)
    }

    deinit {
        instructions.deallocate()
        text.deallocate()
        hints.deinitialize(count: keys.count)
        hints.deallocate()
        keys.deinitialize().deallocate()
        keyFingerprints.deallocate()
        partials.deinitialize().deallocate()
    }

    private static func copy<Element>(_ elements: [Element]) -> UnsafeMutableBufferPointer<Element> {
        // At least one element, so every table has an address.
        let table = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(elements.count, 1))
        _ = table.initialize(from: elements)
        return UnsafeMutableBufferPointer(rebasing: table[0..<elements.count])
    }

    private struct Builder {
        var instructions: [Instruction] = []
        var text: [UInt8] = []
        var keys: [String] = []
        var partials: [PartialCall] = []

        mutating func compile(_ nodes: [Node], caller: Int, indexByName: [String: Int]) {
            for node in nodes {
                switch node.kind {
                case .text(let bytes):
                    instructions.append(
                        Instruction(opcode: .text, operand: Int32(text.count), count: Int32(bytes.count), end: 0))
                    text += bytes
                case .variable(let path, let escaped):
                    let (first, count) = add(path)
                    instructions.append(
                        Instruction(
                            opcode: escaped ? .escapedVariable : .rawVariable, operand: first, count: count, end: 0))
                case .section(let path, let children, let inverted):
                    let (first, count) = add(path)
                    let index = instructions.count
                    instructions.append(Instruction(opcode: .text, operand: 0, count: 0, end: 0))  // placeholder
                    compile(children, caller: caller, indexByName: indexByName)
                    instructions[index] = Instruction(
                        opcode: inverted ? .invertedSection : .section, operand: first, count: count,
                        end: Int32(instructions.count))
                case .partial(let name, let indent):
                    instructions.append(
                        Instruction(opcode: .partial, operand: Int32(partials.count), count: 0, end: 0))
                    partials.append(
                        PartialCall(
                            name: name, target: indexByName[name] ?? -1, indentStart: text.count,
                            indentCount: indent.count, caller: caller, line: node.line))
                    text += indent
                }
            }
        }

        private mutating func add(_ path: Path) -> (first: Int32, count: Int32) {
            let first = keys.count
            keys += path.components
            return (Int32(first), Int32(path.components.count))
        }
    }
}
