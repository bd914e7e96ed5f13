import Basics
import Synchronization

/// Runs a template's instructions once, writing UTF-8 bytes into a single buffer.
///
/// Bytes rather than a String: the page ends up as a response body of bytes anyway, and each
/// String.append cost a few hundred instructions (about 760 of them per page of 50 rows, a third
/// of the render in callgrind), where appending bytes is a capacity check and a memcpy.
struct Renderer: ~Copyable {
    private(set) var output: OutputBuffer
    var contexts: ContextStack
    private let program: Program
    private let instructions: UnsafeMutableBufferPointer<Instruction>
    private let text: UnsafePointer<UInt8>
    let keys: UnsafeMutableBufferPointer<String>
    let keyFingerprints: UnsafeMutableBufferPointer<UInt64>
    let hints: UnsafeMutablePointer<Atomic<Int>>
    private let partialsAvailable: Bool
    private let maximumPartialDepth: Int
    private var partialDepth = 0
    /// Whitespace to put before each line of the partial being rendered (empty almost always).
    private var indent: [UInt8] = []
    private var atLineStart = true
    /// The table whose row is the frame at `rowDepth`, while a section over a table runs (the
    /// section's own binding keeps the table alive); `rowDepth` is -1 outside of one. Read by
    /// `innermostCell` without matching the frame's enum, which retained and released the table
    /// for every cell.
    var rowTable: Unmanaged<TextTable>?
    var rowIndex = 0
    var rowDepth = -1

    init(
        context: MustacheValue, program: Program, partialsAvailable: Bool, maximumPartialDepth: Int,
        output: consuming OutputBuffer
    ) {
        contexts = ContextStack(root: context, keyCount: program.keys.count)
        self.program = program
        instructions = program.instructions
        guard let textStart = program.text.baseAddress else {
            preconditionFailure("a program's tables always have an address (see Program.copy)")
        }
        text = UnsafePointer(textStart)
        keys = program.keys
        keyFingerprints = program.keyFingerprints
        hints = program.hints
        self.partialsAvailable = partialsAvailable
        self.maximumPartialDepth = maximumPartialDepth
        self.output = output
    }

    /// The page rendered, as an array of its own (for a page that outgrew the storage it was given).
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
                if indent.isEmpty {
                    output.appendText(text + Int(instruction.operand), count: Int(instruction.count))
                } else {
                    appendIndenting(
                        UnsafeRawBufferPointer(start: text + Int(instruction.operand), count: Int(instruction.count)))
                }
                index += 1
            case .escapedVariable, .rawVariable:
                if !indent.isEmpty, atLineStart {
                    output.append(indent)
                    atLineStart = false
                }
                let cell = innermostCell(instruction)
                if cell.found {
                    if let bytes = cell.bytes { append(bytes, escaped: instruction.opcode == .escapedVariable) }
                } else if let value = resolve(instruction) {
                    append(value, escaped: instruction.opcode == .escapedVariable)
                }
                index += 1
            case .section:
                let childrenEnd = Int(instruction.end)
                if let value = resolve(instruction) {
                    if case .array(let elements) = value.pointee {
                        // The array is held for the loop: `value` may point to a held dictionary
                        // value that the children's lookups replace. This binding must stay a real
                        // (retained) copy: do not change it to read through `value` in the loop.
                        var element = 0
                        while element < elements.count {
                            contexts.push(elements[element])
                            try run(from: index + 1, to: childrenEnd, template: template)
                            contexts.pop()
                            element += 1
                        }
                    } else if case .table(let table) = value.pointee {
                        // The table is held by this binding for the loop, as the array above.
                        if renderRows(of: table, from: index + 1, to: childrenEnd) {
                            index = childrenEnd
                            continue
                        }
                        let outer = (rowTable, rowIndex, rowDepth)
                        rowTable = Unmanaged.passUnretained(table)
                        rowDepth = contexts.depth
                        var row = 0
                        while row < table.rowCount {
                            rowIndex = row
                            contexts.push(.tableRow(table, row))
                            try run(from: index + 1, to: childrenEnd, template: template)
                            contexts.pop()
                            row += 1
                        }
                        (rowTable, rowIndex, rowDepth) = outer
                    } else if value.pointee.isTruthy {
                        // `value` may point into the frames that `push` reallocates: the value is
                        // read (copied) before the push, as the argument, never after it.
                        contexts.push(value.pointee)
                        try run(from: index + 1, to: childrenEnd, template: template)
                        contexts.pop()
                    }
                }
                index = childrenEnd
            case .invertedSection:
                // The children run in the same context, so they are just the next instructions.
                index = resolve(instruction)?.pointee.isTruthy == true ? Int(instruction.end) : index + 1
            case .partial:
                try renderPartial(Int(instruction.operand), template: template)
                index += 1
            }
        }
    }

    /// A section over a table whose children are only template text and one-name tags that are
    /// columns of the table (the usual list of rows): renders every row and returns true. Each
    /// tag's column is found once for the section, not once per row, and a row is not pushed as a
    /// context (nothing in these children could look past it): per row, the children are copies of
    /// text and cells escaped from the table's bytes, as `innermostCell` would read them. Returns
    /// false, having written nothing, for any other children (sections, partials, dotted names,
    /// `{{.}}`, names that are not columns) or inside an indented partial; the caller renders those
    /// row by row as before. Callgrind, the 50 rows of /bench/rows: ~540 instructions a row in the
    /// instruction loop and the lookups before, besides the escaping.
    private mutating func renderRows(of table: TextTable, from start: Int, to end: Int) -> Bool {
        guard indent.isEmpty, start < end else { return false }
        return withUnsafeTemporaryAllocation(of: RowStep.self, capacity: end - start) { steps in
            var index = start
            while index < end {
                let instruction = instructions[index]
                switch instruction.opcode {
                case .text:
                    steps[index - start] = RowStep(
                        text: text + Int(instruction.operand), count: Int(instruction.count), column: -1, escaped: false
                    )
                case .escapedVariable, .rawVariable:
                    guard instruction.count == 1, let column = column(Int(instruction.operand), of: table) else {
                        return false
                    }
                    steps[index - start] = RowStep(
                        text: text, count: 0, column: column, escaped: instruction.opcode == .escapedVariable)
                default: return false
                }
                index += 1
            }
            renderRows(of: table, steps: UnsafeBufferPointer(steps))
            return true
        }
    }

    /// The rows of `table` by `steps` (see the other `renderRows`). A function of its own: inside
    /// the closure above, the compiler stopped inlining the escaper into the loop (a call per cell).
    private mutating func renderRows(of table: TextTable, steps: UnsafeBufferPointer<RowStep>) {
        let columnCount = table.columns.count
        var firstCell = 0
        var row = 0
        while row < table.rowCount {
            var index = 0
            while index < steps.count {
                let step = steps[index]
                index &+= 1
                if step.column < 0 {
                    output.appendText(step.text, count: step.count)
                } else if let cell = table.cell(at: firstCell &+ step.column) {
                    append(cell, escaped: step.escaped)
                }
            }
            firstCell &+= columnCount
            row &+= 1
        }
    }

    /// One child of a section that `renderRows` renders: template text, or a column's cell.
    private struct RowStep {
        let text: UnsafePointer<UInt8>
        let count: Int
        /// -1 for text.
        let column: Int
        let escaped: Bool
    }

    /// `tag`: the index of the partial tag in the program's partials (read in place: a copy of the
    /// PartialCall retains and releases its name, ~20 instructions a partial).
    private mutating func renderPartial(_ tag: Int, template: Int) throws {
        guard let firstPartial = program.partials.baseAddress else {
            preconditionFailure("a program's tables always have an address (see Program.copy)")
        }
        let call = UnsafePointer(firstPartial + tag)
        guard partialsAvailable, call.pointee.target >= 0 else {
            throw MustacheError(
                .unknownPartial(call.pointee.name), template: program.entries[template].name, line: call.pointee.line)
        }
        guard partialDepth < maximumPartialDepth else {
            throw MustacheError(
                .partialDepthExceeded(maximumPartialDepth), template: program.entries[template].name,
                line: call.pointee.line)
        }
        partialDepth += 1
        if call.pointee.indentCount == 0 {
            try run(from: call.pointee.targetStart, to: call.pointee.targetEnd, template: call.pointee.target)
        } else {
            let outerIndent = indent
            indent += UnsafeBufferPointer(start: text + call.pointee.indentStart, count: call.pointee.indentCount)
            atLineStart = true
            try run(from: call.pointee.targetStart, to: call.pointee.targetEnd, template: call.pointee.target)
            indent = outerIndent
        }
        partialDepth -= 1
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeRawBufferPointer, escaped: Bool) {
        if escaped {
            appendEscapingHTML(bytes.assumingMemoryBound(to: UInt8.self), to: &output)
        } else {
            output.append(bytes)
        }
    }

    private mutating func append(_ value: UnsafePointer<MustacheValue>, escaped: Bool) {
        // 16 bytes of room for the bytes of a small string (which has no storage of its own).
        var smallString: (UInt64, UInt64) = (0, 0)
        let appended = withUnsafeMutableBytes(of: &smallString) { room in
            guard let bytes = Renderer.utf8(of: value, smallString: room) else { return false }
            if escaped { appendEscapingHTML(bytes, to: &output) } else { output.append(UnsafeRawBufferPointer(bytes)) }
            return true
        }
        if appended { return }
        switch value.pointee {
        case .string(var text):
            // Only a string without contiguous UTF-8 (none are made on Linux) comes here.
            text.withUTF8 { bytes in
                if escaped {
                    appendEscapingHTML(bytes, to: &output)
                } else {
                    output.append(UnsafeRawBufferPointer(bytes))
                }
            }
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number): output.append(contentsOf: String(number).utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        // Containers have no text form; printing Swift's debug description would leak structure.
        case .null, .array, .dictionary, .fields, .table, .tableRow: break
        }
    }

    /// The UTF-8 of a string value, without copying the String: a copy is a retain and a release
    /// of its storage (callgrind: ~60 instructions per value, a quarter of the rows page's
    /// renderer). A string of more than 15 bytes has storage of its own, which the context holds
    /// for as long as the value is on a page; a small one keeps its bytes inline, so they are
    /// copied into `smallString`. Nil for other values.
    ///
    /// The buffer outlives the closure that gave it: the standard library promises that only while
    /// the closure runs. It holds because the storage belongs to a context value that nothing
    /// mutates or frees during the render (ContextStack); the release-build memcheck, ASan and
    /// differential fuzz runs of this renderer rely on the same assumption.
    @inline(__always)
    private static func utf8(of value: UnsafePointer<MustacheValue>, smallString: UnsafeMutableRawBufferPointer)
        -> UnsafeBufferPointer<UInt8>?
    {
        guard case .string(let text) = value.pointee else { return nil }
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count <= smallString.count else { return bytes }
            guard let source = bytes.baseAddress, let target = smallString.baseAddress else {
                return UnsafeBufferPointer(start: nil, count: 0)
            }
            target.copyMemory(from: source, byteCount: bytes.count)
            return UnsafeBufferPointer(start: target.assumingMemoryBound(to: UInt8.self), count: bytes.count)
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
