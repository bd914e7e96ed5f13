import Basics
import Synchronization

/// How a tag's name is looked up: the context stack, a table's row, a value's member.
extension Renderer {
    /// Spec lookup: the first name is searched from the innermost context outwards; the rest of a
    /// dotted name is resolved inside what was found, never by searching outer contexts again.
    /// Nil when a name is missing, which renders as null. A pointer, not a copy (see ContextStack).
    ///
    /// Most tags are one name found in the innermost context, a field list, where it was last
    /// time: that case is checked inline, without the call and the search (callgrind: ~100
    /// instructions a lookup before, a third of them entering and leaving the function).
    @inline(__always)
    mutating func resolve(_ instruction: Instruction) -> UnsafePointer<MustacheValue>? {
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
    func innermostCell(_ instruction: Instruction) -> (found: Bool, bytes: UnsafeRawBufferPointer?) {
        guard instruction.count == 1, rowDepth == contexts.depth - 1, let rowTable else { return (false, nil) }
        return rowTable._withUnsafeGuaranteedRef { table in
            guard let column = column(Int(instruction.operand), of: table) else { return (false, nil) }
            return (true, table.cell(row: rowIndex, column: column))
        }
    }

    /// The column of `table` named by the key `key`, looked for first where the hint says (the
    /// rows of a section are one table, so after the first row it is always there).
    @inline(__always)
    func column(_ key: Int, of table: TextTable) -> Int? {
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
    mutating func search(_ instruction: Instruction) -> UnsafePointer<MustacheValue>? {
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
    func member(_ key: Int, of context: UnsafePointer<MustacheValue>) -> UnsafePointer<MustacheValue>? {
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
}
