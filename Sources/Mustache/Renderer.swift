import Basics
import Synchronization

/// Runs a template's instructions once, writing UTF-8 bytes into a single buffer.
///
/// Bytes rather than a String: the page ends up as a response body of bytes anyway, and each
/// String.append cost a few hundred instructions (about 760 of them per page of 50 rows, a third
/// of the render in callgrind), where appending bytes is a capacity check and a memcpy.
struct Renderer: ~Copyable {
    private(set) var output: OutputBuffer
    private var contexts: ContextStack
    private let program: Program
    private let instructions: UnsafeMutableBufferPointer<Instruction>
    private let text: UnsafePointer<UInt8>
    private let keys: UnsafeMutableBufferPointer<String>
    private let keyFingerprints: UnsafeMutableBufferPointer<UInt64>
    private let hints: UnsafeMutablePointer<Atomic<Int>>
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
    private var rowTable: Unmanaged<TextTable>?
    private var rowIndex = 0
    private var rowDepth = -1

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

    /// Spec lookup: the first name is searched from the innermost context outwards; the rest of a
    /// dotted name is resolved inside what was found, never by searching outer contexts again.
    /// Nil when a name is missing, which renders as null. A pointer, not a copy (see ContextStack).
    ///
    /// Most tags are one name found in the innermost context, a field list, where it was last
    /// time: that case is checked inline, without the call and the search (callgrind: ~100
    /// instructions a lookup before, a third of them entering and leaving the function).
    @inline(__always)
    private mutating func resolve(_ instruction: Instruction) -> UnsafePointer<MustacheValue>? {
        if instruction.count == 1 {
            let key = Int(instruction.operand)
            let hint = hints[key].load(ordering: .relaxed)
            if case .fields(let fields) = contexts[contexts.depth - 1].pointee,
                let found = fields.address(of: keys[key], atHint: hint)
            {
                return found
            }
        }
        return search(instruction)
    }

    /// A one-name tag whose name is a column of the innermost context, a table row (a section over a
    /// table): `found`, and the cell's bytes in the table (nil for NULL). Not found for anything
    /// else, which `resolve` looks up as usual. The bytes are the table's, which the frame holds.
    @inline(__always)
    private func innermostCell(_ instruction: Instruction) -> (found: Bool, bytes: UnsafeRawBufferPointer?) {
        guard instruction.count == 1, rowDepth == contexts.depth - 1, let rowTable else { return (false, nil) }
        return rowTable._withUnsafeGuaranteedRef { table in
            guard let column = column(Int(instruction.operand), of: table) else { return (false, nil) }
            return (true, table.cell(row: rowIndex, column: column))
        }
    }

    /// The column of `table` named by the key `key`, looked for first where the hint says (the
    /// rows of a section are one table, so after the first row it is always there).
    @inline(__always)
    private func column(_ key: Int, of table: TextTable) -> Int? {
        let hint = hints[key].load(ordering: .relaxed)
        let name = keys[key]
        let found: (column: Int?, newHint: Bool) = table.columns.withUnsafeBufferPointer { columns in
            if hint >= 0, hint < columns.count, sameBits(columns[hint], name) { return (hint, false) }
            var column = 0
            while column < columns.count {
                if columns[column] == name { return (column, true) }
                column += 1
            }
            return (nil, false)
        }
        if found.newHint, let column = found.column { hints[key].store(column, ordering: .relaxed) }
        return found.column
    }

    @inline(never)
    private mutating func search(_ instruction: Instruction) -> UnsafePointer<MustacheValue>? {
        let first = Int(instruction.operand)
        let end = first + Int(instruction.count)
        guard first < end else { return contexts[contexts.depth - 1] }
        var found: UnsafePointer<MustacheValue>?
        var frame = contexts.depth - 1
        while frame >= 0 {
            // Reaching this frame means the first key is in none of the inner ones.
            if let remembered = contexts.remembered(first, foundIn: frame) { return remembered }
            found = member(first, of: contexts[frame])
            if found != nil { break }
            frame -= 1
        }
        guard var current = found else { return nil }
        var component = first + 1
        while component < end {
            guard let value = member(component, of: current) else { return nil }
            current = value
            component += 1
        }
        if contexts.isHeld(current) { return contexts.remember(current.pointee, for: first, foundIn: frame) }
        return current
    }

    /// The value of the key `key` (an index in the program's keys) in a context. Small dictionaries
    /// are searched key by key, which beats hashing the name (callgrind: Hasher seed, combine and
    /// finalize were most of a lookup).
    @inline(__always)
    private func member(_ key: Int, of context: UnsafePointer<MustacheValue>) -> UnsafePointer<MustacheValue>? {
        // The hint is read before and written after the switch: an atomic access while a context's
        // payload is bound makes the compiler copy the payload (a retain and release per lookup).
        let hint = hints[key].load(ordering: .relaxed)
        let found: UnsafePointer<MustacheValue>?
        var foundAt = -1
        switch context.pointee {
        case .fields(let fields):
            (found, foundAt) = fields.address(of: keys[key], fingerprint: keyFingerprints[key], hint: hint)
        case .dictionary(let dictionary):
            if dictionary.count <= 8 {
                for (name, value) in dictionary where name == keys[key] { return contexts.hold(value) }
                return nil
            }
            return dictionary[keys[key]].map { contexts.hold($0) }
        case .tableRow(let table, let row):
            // Reached only for a row that is not the innermost context, or a dotted name: the cell
            // is made into a value (the innermost row's cells are read in place, `innermostCell`).
            guard let column = column(key, of: table) else { return nil }
            return contexts.hold(MustacheValue(table.string(row: row, column: column)))
        default: return nil
        }
        if foundAt >= 0 { hints[key].store(foundAt, ordering: .relaxed) }
        return found
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
