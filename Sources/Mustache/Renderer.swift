/// Runs a template's instructions once, writing UTF-8 bytes into a single buffer.
///
/// Bytes rather than a String: the page ends up as a response body of bytes anyway, and each
/// String.append cost a few hundred instructions (about 760 of them per page of 50 rows, a third
/// of the render in callgrind), where appending bytes is a capacity check and a memcpy.
struct Renderer: ~Copyable {
    private(set) var output: OutputBuffer
    private var stack: [MustacheValue]
    private let program: Program
    private let instructions: UnsafeMutableBufferPointer<Instruction>
    private let text: UnsafePointer<UInt8>
    private let keys: UnsafeMutableBufferPointer<String>
    private let partialsAvailable: Bool
    private let maximumPartialDepth: Int
    private var partialDepth = 0
    /// Whitespace to put before each line of the partial being rendered (empty almost always).
    private var indent: [UInt8] = []
    private var atLineStart = true

    init(context: MustacheValue, program: Program, partialsAvailable: Bool, maximumPartialDepth: Int, capacity: Int) {
        stack = [context]
        self.program = program
        instructions = program.instructions
        text = UnsafePointer(program.text.baseAddress!)
        keys = program.keys
        self.partialsAvailable = partialsAvailable
        self.maximumPartialDepth = maximumPartialDepth
        output = OutputBuffer(capacity: capacity)
    }

    /// The page rendered, as bytes.
    consuming func finish() -> [UInt8] { output.bytes() }

    mutating func render(entry: Int) throws {
        let template = program.entries[entry]
        try run(from: template.start, to: template.end, template: entry)
    }

    /// Runs the instructions in `start..<end`; `template` (an entry) is for errors.
    private mutating func run(from start: Int, to end: Int, template: Int) throws {
        var index = start
        while index < end {
            let instruction = instructions[index]
            switch instruction.opcode {
            case .text:
                let bytes = UnsafeRawBufferPointer(start: text + Int(instruction.operand), count: Int(instruction.count))
                if indent.isEmpty {
                    output.append(bytes)
                } else {
                    appendIndenting(bytes)
                }
                index += 1
            case .escapedVariable, .rawVariable:
                let value = lookUp(instruction)
                if !indent.isEmpty, atLineStart {
                    output.append(indent)
                    atLineStart = false
                }
                append(value, escaped: instruction.opcode == .escapedVariable)
                index += 1
            case .section:
                let value = lookUp(instruction)
                let childrenEnd = Int(instruction.end)
                if case .array(let elements) = value {
                    var element = 0
                    while element < elements.count {
                        stack.append(elements[element])
                        try run(from: index + 1, to: childrenEnd, template: template)
                        stack.removeLast()
                        element += 1
                    }
                } else if value.isTruthy {
                    stack.append(value)
                    try run(from: index + 1, to: childrenEnd, template: template)
                    stack.removeLast()
                }
                index = childrenEnd
            case .invertedSection:
                // The children run in the same context, so they are just the next instructions.
                index = lookUp(instruction).isTruthy ? Int(instruction.end) : index + 1
            case .partial:
                try renderPartial(program.partials[Int(instruction.operand)], template: template)
                index += 1
            }
        }
    }

    private mutating func renderPartial(_ call: PartialCall, template: Int) throws {
        guard partialsAvailable, call.target >= 0 else {
            throw MustacheError(.unknownPartial(call.name), template: program.entries[template].name, line: call.line)
        }
        guard partialDepth < maximumPartialDepth else {
            throw MustacheError(
                .partialDepthExceeded(maximumPartialDepth), template: program.entries[template].name, line: call.line)
        }
        let partial = program.entries[call.target]
        partialDepth += 1
        if call.indentCount == 0 {
            try run(from: partial.start, to: partial.end, template: call.target)
        } else {
            let outerIndent = indent
            indent += UnsafeBufferPointer(start: text + call.indentStart, count: call.indentCount)
            atLineStart = true
            try run(from: partial.start, to: partial.end, template: call.target)
            indent = outerIndent
        }
        partialDepth -= 1
    }

    /// Spec lookup: the first name is searched from the innermost context outwards; the rest of a
    /// dotted name is resolved inside what was found, never by searching outer contexts again.
    /// Indices rather than `for frame in stack.reversed()`: iterating copies each frame (a retain and
    /// a release per frame per tag, most of the render's retain/release traffic in perf).
    private func lookUp(_ instruction: Instruction) -> MustacheValue {
        let first = Int(instruction.operand)
        let end = first + Int(instruction.count)
        guard first < end else { return stack.last ?? .null }
        var found: MustacheValue?
        var frame = stack.count - 1
        while frame >= 0 {
            if let value = Renderer.value(keys[first], in: stack[frame]) {
                found = value
                break
            }
            frame -= 1
        }
        guard var current = found else { return .null }
        var component = first + 1
        while component < end {
            guard let value = Renderer.value(keys[component], in: current) else { return .null }
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
    private mutating func appendIndenting(_ text: UnsafeRawBufferPointer) {
        var lineStart = 0
        while lineStart < text.count {
            if atLineStart { output.append(indent) }
            let newline = text[lineStart...].firstIndex(of: UInt8(ascii: "\n"))
            let lineEnd = newline.map { $0 + 1 } ?? text.count
            output.append(UnsafeRawBufferPointer(rebasing: text[lineStart..<lineEnd]))
            atLineStart = newline != nil
            lineStart = lineEnd
        }
    }
}
