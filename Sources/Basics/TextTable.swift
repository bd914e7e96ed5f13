/// Rows of text cells with named columns, every cell's UTF-8 in one allocation: what a page's rows
/// are between the database and the template.
///
/// Rows read into Swift values cost an allocation per string and per row, and as much again to free
/// them after the page is rendered (callgrind, the 50-row bench page: making 150 Strings and their
/// rows 0.3 M instructions, releasing them 0.17 M, rendering them 0.09 M). A table is a few
/// allocations whatever its size; a template reads its cells in place (`Mustache`'s `.table`), and
/// SQLite's bytes are copied once, into the table, then once more, escaped, into the page.
///
/// Immutable once built, hence Sendable (unchecked only because its storage is behind raw pointers);
/// a cell's bytes live as long as the table.
public final class TextTable: @unchecked Sendable, Equatable {
    public let columns: [String]
    public let rowCount: Int
    /// Every cell's bytes, row by row (nil when the table has no bytes at all).
    @usableFromInline let bytes: UnsafeMutableRawPointer?
    /// For cell i (row × columns + column): its end in `bytes`; its start is the previous cell's end.
    /// Negative (minus the end, minus one) for NULL.
    @usableFromInline let ends: UnsafeMutablePointer<Int>?

    init(columns: [String], rowCount: Int, bytes: UnsafeMutableRawPointer?, ends: UnsafeMutablePointer<Int>?) {
        self.columns = columns
        self.rowCount = rowCount
        self.bytes = bytes
        self.ends = ends
    }

    /// A table of the given rows, each with one cell per column (nil for NULL).
    public convenience init(columns: [String], rows: [[String?]]) {
        var builder = Builder(columns: columns)
        for row in rows {
            precondition(row.count == columns.count, "a row of \(row.count) cells for \(columns.count) columns")
            for cell in row { builder.append(cell) }
        }
        self.init(builder)
    }

    public convenience init(_ builder: consuming Builder) {
        let (columns, rowCount, bytes, ends) = builder.take()
        self.init(columns: columns, rowCount: rowCount, bytes: bytes, ends: ends)
    }

    deinit {
        bytes?.deallocate()
        ends?.deallocate()
    }

    /// The index of the first column called `name`.
    public func column(named name: String) -> Int? { columns.firstIndex(of: name) }

    /// The UTF-8 of the cell at `row`, `column`, or nil for NULL. The bytes stay valid, unchanged, for
    /// as long as the table exists. Both indexes must be in range. Inlinable: a template reads every
    /// cell through it, and a call across modules cost as much as the read.
    @inlinable
    public func cell(row: Int, column: Int) -> UnsafeRawBufferPointer? {
        precondition(row >= 0 && row < rowCount && column >= 0 && column < columns.count, "no such cell")
        return cell(at: row &* columns.count &+ column)
    }

    /// The cell at `index`, counted row by row (row × `columns.count` + column), as `cell(row:column:)`:
    /// for a reader that walks the cells in order, with one bounds check.
    @inlinable
    public func cell(at index: Int) -> UnsafeRawBufferPointer? {
        precondition(index >= 0 && index < rowCount &* columns.count, "no such cell")
        guard let ends else { return nil }
        let end = ends[index]
        guard end >= 0 else { return nil }
        let start = index == 0 ? 0 : ends[index - 1] >= 0 ? ends[index - 1] : -ends[index - 1] - 1
        return UnsafeRawBufferPointer(start: bytes.map { UnsafeRawPointer($0 + start) }, count: end - start)
    }

    /// The cell as a String, or nil for NULL.
    public func string(row: Int, column: Int) -> String? {
        cell(row: row, column: column).map { String(decoding: $0, as: UTF8.self) }
    }

    public static func == (lhs: TextTable, rhs: TextTable) -> Bool {
        guard lhs.columns == rhs.columns, lhs.rowCount == rhs.rowCount else { return false }
        for row in 0..<lhs.rowCount {
            for column in 0..<lhs.columns.count {
                let left = lhs.cell(row: row, column: column)
                let right = rhs.cell(row: row, column: column)
                guard (left == nil) == (right == nil) else { return false }
                if let left, let right, !left.elementsEqual(right) { return false }
            }
        }
        return true
    }

    /// Cells appended row by row, column by column; a row is complete every `columns.count` cells.
    public struct Builder: ~Copyable {
        @usableFromInline let columns: [String]
        @usableFromInline var bytes: UnsafeMutableRawPointer?
        @usableFromInline var byteCount = 0
        @usableFromInline var byteCapacity = 0
        @usableFromInline var ends: UnsafeMutablePointer<Int>?
        @usableFromInline var cellCount = 0
        @usableFromInline var cellCapacity = 0

        public init(columns: [String]) {
            self.columns = columns
        }

        deinit {
            bytes?.deallocate()
            ends?.deallocate()
        }

        /// Appends the next cell: its UTF-8, or nil for NULL. Inlinable, for the store readers that
        /// call it once per value.
        @inlinable
        public mutating func append(_ cell: UnsafeRawBufferPointer?) {
            if cellCount == cellCapacity { growCells() }
            if let cell {
                if byteCount + cell.count > byteCapacity { growBytes(toAtLeast: byteCount + cell.count) }
                if let source = cell.baseAddress, let bytes, cell.count > 0 {
                    (bytes + byteCount).copyMemory(from: source, byteCount: cell.count)
                }
                byteCount += cell.count
                ends.unsafelyUnwrapped[cellCount] = byteCount
            } else {
                ends.unsafelyUnwrapped[cellCount] = -byteCount - 1
            }
            cellCount += 1
        }

        public mutating func append(_ cell: String?) {
            guard var cell else { return append(nil as UnsafeRawBufferPointer?) }
            cell.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }

        @usableFromInline @inline(never)
        mutating func growCells() {
            let capacity = max(cellCapacity * 2, max(columns.count, 1) * 16)
            let larger = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
            if let ends {
                larger.moveInitialize(from: ends, count: cellCount)
                ends.deallocate()
            }
            ends = larger
            cellCapacity = capacity
        }

        @usableFromInline @inline(never)
        mutating func growBytes(toAtLeast minimum: Int) {
            let capacity = max(minimum, byteCapacity * 2, 1024)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            if let bytes {
                larger.copyMemory(from: bytes, byteCount: byteCount)
                bytes.deallocate()
            }
            bytes = larger
            byteCapacity = capacity
        }

        fileprivate consuming func take() -> (
            columns: [String], rowCount: Int, bytes: UnsafeMutableRawPointer?, ends: UnsafeMutablePointer<Int>?
        ) {
            precondition(
                columns.isEmpty ? cellCount == 0 : cellCount % columns.count == 0, "a table's last row is incomplete")
            let result = (columns, columns.isEmpty ? 0 : cellCount / columns.count, bytes, ends)
            bytes = nil
            ends = nil
            return result
        }
    }
}
