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
        #expect(
            try render(template, ["rows": [["name": "a"], ["name": "b"]]]) == """
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

    // Cases from the Mustache spec (sections.yml, partials.yml), written out here.
    @Test func specEdgeCases() throws {
        #expect(try render("  {{#b}}\n#{{/b}}\n/", ["b": true]) == "#\n/")
        #expect(try render("#{{#b}}\n/\n  {{/b}}", ["b": true]) == "#\n/\n")
        #expect(try render("| This Is\n{{#b}}\n|\n{{/b}}\n| A Line", ["b": true]) == "| This Is\n|\n| A Line")
        #expect(try render(" | {{#b}} {{/b}} | \n", ["b": true]) == " |   | \n")
        #expect(try render("  {{>p}}\n>", [:], partials: ["p": ">\n>"]) == "  >\n  >>")
        #expect(try render(">\n  {{>p}}", [:], partials: ["p": ">\n>"]) == ">\n  >\n  >")
        #expect(try render("  {{d}}  {{> p}}\n", ["d": "|"], partials: ["p": ">\n>"]) == "  |  >\n>\n")
        #expect(
            try render("\\\n {{>p}}\n/\n", ["content": "<\n->"], partials: ["p": "|\n{{{content}}}\n|\n"])
                == "\\\n |\n <\n->\n |\n/\n")
    }

    @Test func nestedStandalonePartialsAccumulateIndentation() throws {
        let partials = ["outer": "<div>\n  {{>inner}}\n</div>\n", "inner": "<p>\nx\n</p>\n"]
        #expect(
            try render("<body>\n  {{>outer}}\n</body>\n", [:], partials: partials)
                == "<body>\n  <div>\n    <p>\n    x\n    </p>\n  </div>\n</body>\n")
    }
}
