import Testing

@testable import Mustache

@Suite struct StandaloneTests {
    @Test func standaloneSectionLinesDisappear() throws {
        let template = """
            <ul>
              {{#rows}}
              <li>{{name}}</li>
              {{/rows}}
            </ul>

            """
        #expect(try render(template, ["rows": [["name": "a"], ["name": "b"]]]) == """
            <ul>
              <li>a</li>
              <li>b</li>
            </ul>

            """)
    }

    @Test func standaloneInvertedCommentAndCRLF() throws {
        #expect(try render("a\n  {{^x}}\t\nb\n{{/x}}\nc", [:]) == "a\nb\nc")
        #expect(try render("a\n  {{! note }}  \nb", [:]) == "a\nb")
        #expect(try render("a\r\n{{#t}}\r\nb\r\n{{/t}}\r\nc", ["t": true]) == "a\r\nb\r\nc")
        #expect(try render("{{#t}}\nb\n{{/t}}", ["t": true]) == "b\n")  // at start and end of template
    }

    @Test func tagsSharingALineAreNotStandalone() throws {
        #expect(try render(" {{#t}}yes{{/t}}\n", ["t": true]) == " yes\n")
        #expect(try render("x {{#t}}\ny\n{{/t}}", ["t": true]) == "x \ny\n")
        #expect(try render("{{v}} {{#t}}\nx\n{{/t}}\n", ["t": false, "v": "a"]) == "a ")
    }

    @Test func variablesAreNeverStandalone() throws {
        #expect(try render("  {{v}}\n", ["v": "x"]) == "  x\n")
    }

    @Test func standalonePartialIsIndentedLineByLine() throws {
        let partials = ["item": "<li>\n  {{name}}\n</li>\n"]
        let output = try render("<ul>\n  {{>item}}\n</ul>\n", ["name": "a\nb"], partials: partials)
        // Template lines of the partial get the indent; interpolated data does not.
        #expect(output == "<ul>\n  <li>\n    a\nb\n  </li>\n</ul>\n")
    }
}
