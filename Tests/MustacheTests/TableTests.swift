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

    /// The same rows as an array of field lists, the form the engine rendered row by row before tables.
    static func asFields(_ table: TextTable) -> MustacheValue {
        .array(
            (0..<table.rowCount).map { row in
                .fields(
                    MustacheFields(
                        table.columns.indices.map {
                            (table.columns[$0], MustacheValue(table.string(row: row, column: $0)))
                        }
                    ))
            })
    }

    @Test func aSectionOverATableRendersAsTheSameRowsAsFields() throws {
        let source = "{{#rows}}<li>{{name}}|{{address}}|{{note}}|{{{name}}}|{{title}}</li>{{/rows}}"
        let fromTable = try render(source, ["title": "T", "rows": .table(table)])
        #expect(fromTable == (try render(source, ["title": "T", "rows": Self.asFields(table)])))
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

    /// Children that are only text and columns take the renderer's row loop (`renderRows`); what
    /// comes out must be what the same rows as field lists give, for hostile text too.
    @Test func aSectionOfOnlyTextAndColumnsRendersAsFieldsDo() throws {
        var builder = TextTable.Builder(columns: ["name", "note"])
        let hostile: [[UInt8]?] = [
            Array("<script>alert(\"x\")</script>".utf8), Array("' onmouseover='x' a=`b`".utf8),
            Array("a\u{0}b&amp;".utf8), nil, Array("caf\u{E9} \u{1F3DB}\u{FE0F} & more than sixteen <bytes>".utf8), [],
        ]
        for cell in hostile {
            if let cell {
                cell.withUnsafeBytes { builder.append($0) }
            } else {
                builder.append(nil as UnsafeRawBufferPointer?)
            }
        }
        let hostileTable = TextTable(builder)
        for source in [
            "{{#rows}}<li title=\"{{note}}\">{{name}}</li>\n{{/rows}}", "{{#rows}}{{{name}}}|{{& note}}{{/rows}}",
            "{{#rows}}{{name}}{{/rows}}", "{{#rows}}{{/rows}}",
        ] {
            for rows in [table, hostileTable] {
                let fromTable = try render(source, ["rows": .table(rows)])
                #expect(fromTable == (try render(source, ["rows": Self.asFields(rows)])), "\(source)")
            }
        }
        let escaped = try render("{{#rows}}[{{name}}|{{note}}]{{/rows}}", ["rows": .table(hostileTable)])
        #expect(
            escaped
                == "[&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;|&#39; onmouseover&#61;&#39;x&#39; a&#61;&#96;b&#96;]"
                + "[a\u{FFFD}b&amp;amp;|]"
                + "[caf\u{E9} \u{1F3DB}\u{FE0F} &amp; more than sixteen &lt;bytes&gt;|]")
    }

    /// A cell's bytes go to the page as they are in the database, but for the escaped ASCII: bytes
    /// that are not UTF-8 stay bytes (a browser shows U+FFFD), never become `<` or `&` (an overlong
    /// `<`, C0 BC, is two bytes no decoder reads as `<`), and never hide a `<` after them.
    @Test func invalidUTF8InACellStaysInert() throws {
        var builder = TextTable.Builder(columns: ["name"])
        let invalid: [UInt8] = [0xC0, 0xBC, 0x3C, 0xFF, 0x26, 0xE2, 0x82, 0x3E, 0x80, 0x22]
        invalid.withUnsafeBytes { builder.append($0) }
        let library = try TemplateLibrary(sources: ["main": "{{#rows}}{{name}}{{/rows}}"])
        let page = try library.renderBytes("main", ["rows": .table(TextTable(builder))])
        #expect(
            page == [0xC0, 0xBC] + Array("&lt;".utf8) + [0xFF] + Array("&amp;".utf8) + [0xE2, 0x82]
                + Array("&gt;".utf8) + [0x80] + Array("&quot;".utf8))
    }

    /// Inside an indented partial the row loop is not used (the indent goes before each line).
    @Test func aTableSectionInAnIndentedPartialIsIndented() throws {
        let rows = TextTable(columns: ["name"], rows: [["a&b"], ["c"]])
        let page = try render(
            "<ul>\n  {{> list}}\n</ul>", ["rows": .table(rows)],
            partials: ["list": "{{#rows}}<li>{{name}}</li>\n{{/rows}}"])
        #expect(page == "<ul>\n  <li>a&amp;b</li>\n  <li>c</li>\n</ul>")
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
