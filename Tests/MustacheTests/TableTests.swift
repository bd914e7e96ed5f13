import Basics
import Testing

@testable import Mustache

/// A `.table` (rows of text from `Database.queryText`) renders as an array of rows would: a section
/// over it repeats per row, the cells are the row's names, escaped as any string; NULL is null.
@Suite struct TableTests {
    let table = TextTable(
        columns: ["name", "address", "note"],
        rows: [
            ["Chapel & <Friends>", "1 Church Lane", nil],
            ["St \"Ninian's\" `=`", "", "kept"],
            ["caf\u{E9} \u{1F3DB}\u{FE0F} and a name longer than sixteen bytes", "2 Quay", ""],
        ])

    @Test func aSectionOverATableRendersAsTheSameRowsAsFields() throws {
        let source = "{{#rows}}<li>{{name}}|{{address}}|{{note}}|{{{name}}}|{{title}}</li>{{/rows}}"
        let asFields: MustacheValue = .array(
            (0..<table.rowCount).map { row in
                .fields(
                    MustacheFields(
                        table.columns.indices.map {
                            (table.columns[$0], MustacheValue(table.string(row: row, column: $0)))
                        }
                    ))
            })
        let fromTable = try render(source, ["title": "T", "rows": .table(table)])
        #expect(fromTable == (try render(source, ["title": "T", "rows": asFields])))
        #expect(fromTable.hasPrefix("<li>Chapel &amp; &lt;Friends&gt;|1 Church Lane||Chapel & <Friends>|T</li>"))
        #expect(fromTable.contains("St &quot;Ninian&#39;s&quot; &#96;&#61;&#96;"))
    }

    @Test func cellsWorkInNestedSectionsInvertedSectionsAndDottedNames() throws {
        let source =
            "{{#rows}}{{#note}}[{{note}}:{{name}}]{{/note}}{{^note}}(none){{/note}}{{#flag}}{{address}}{{/flag}};{{/rows}}"
        #expect(
            try render(source, ["flag": true, "rows": .table(table)])
                == "(none)1 Church Lane;[kept:St &quot;Ninian&#39;s&quot; &#96;&#61;&#96;];(none)2 Quay;")
        #expect(try render("{{#rows}}{{.}}{{/rows}}|{{rows}}", ["rows": .table(table)]) == "|")
        #expect(MustacheValue.tableRow(table, 1)["note"] == "kept")
        #expect(MustacheValue.tableRow(table, 0)["note"] == .null)
        #expect(MustacheValue.tableRow(table, 0)["missing"] == nil)
    }

    @Test func anEmptyTableIsFalsy() throws {
        let empty = TextTable(columns: ["name"], rows: [])
        #expect(try render("{{#rows}}x{{/rows}}{{^rows}}none{{/rows}}", ["rows": .table(empty)]) == "none")
        #expect(MustacheValue.table(empty) == .table(TextTable(columns: ["name"], rows: [])))
        #expect(MustacheValue.table(empty) != .table(table))
    }

    @Test func tablesAreEqualByTheirCells() {
        #expect(TextTable(columns: ["a"], rows: [[nil]]) != TextTable(columns: ["a"], rows: [[""]]))
        #expect(TextTable(columns: ["a"], rows: [["x"], [nil]]) == TextTable(columns: ["a"], rows: [["x"], [nil]]))
        #expect(table.string(row: 2, column: 0) == "caf\u{E9} \u{1F3DB}\u{FE0F} and a name longer than sixteen bytes")
        #expect(table.column(named: "note") == 2)
    }
}
