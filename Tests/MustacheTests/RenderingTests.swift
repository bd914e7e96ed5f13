// MustacheTests: the template engine against the cases of the spec it supports: rendering, partials,
// standalone lines, contexts, field lists, load errors and template directories.
import Testing

@testable import Mustache

func render(_ source: String, _ context: MustacheValue, partials: [String: String] = [:]) throws -> String {
    var sources = partials
    sources["main"] = source
    return try TemplateLibrary(sources: sources).render("main", context)
}

@Suite struct InterpolationTests {
    @Test func variablesAreEscapedByDefault() throws {
        #expect(try render("Hello, {{name}}!", ["name": "World"]) == "Hello, World!")
        #expect(try render("{{ name }}", ["name": "<b>&"]) == "&lt;b&gt;&amp;")
        #expect(try render("[{{missing}}]", [:]) == "[]")
    }

    @Test func numbersBooleansAndContainers() throws {
        #expect(
            try render("{{i}} {{d}} {{t}} {{f}} {{n}}", ["i": 42, "d": 1.5, "t": true, "f": false, "n": nil])
                == "42 1.5 true false ")
        #expect(try render("[{{a}}][{{o}}]", ["a": [1, 2], "o": ["x": 1]]) == "[][]")
    }

    @Test func rawOnlyOnExplicitRequest() throws {
        let context: MustacheValue = ["html": "<em>hi</em> & 'bye'"]
        #expect(try render("{{{html}}}", context) == "<em>hi</em> & 'bye'")
        #expect(try render("{{& html}}", context) == "<em>hi</em> & 'bye'")
        #expect(try render("{{{ html }}}", context) == "<em>hi</em> & 'bye'")
        #expect(try render("{{html}}", context) == "&lt;em&gt;hi&lt;/em&gt; &amp; &#39;bye&#39;")
    }

    @Test func dottedNamesAndImplicitIterator() throws {
        let context: MustacheValue = ["a": ["b": ["c": "deep"]], "x": "top"]
        #expect(try render("{{a.b.c}}", context) == "deep")
        #expect(try render("[{{a.missing.c}}]", context) == "[]")
        #expect(try render("{{#a}}{{b.c}}{{/a}}", context) == "deep")
        #expect(try render("{{.}}", "just me") == "just me")
        #expect(try render("{{#items}}<{{.}}>{{/items}}", ["items": ["a", "b"]]) == "<a><b>")
        // A dotted name does not fall back to outer contexts once its first part is found.
        #expect(try render("{{#a}}[{{b.x}}]{{/a}}", ["a": ["b": [:]], "b": ["x": "outer"]]) == "[]")
    }
}

@Suite struct EscapingTests {
    static let hostile: [(String, String)] = [
        ("\"><script>alert(1)</script>", "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("' onmouseover='x", "&#39; onmouseover&#61;&#39;x"),
        ("`backtick` a=b", "&#96;backtick&#96; a&#61;b"),
        ("&amp;", "&amp;amp;"),
        ("Ünïcødé 🏛️ Ελληνικά", "Ünïcødé 🏛️ Ελληνικά"),
        ("nul\0byte", "nul\u{FFFD}byte"),
        ("", ""),
        ("<", "&lt;"),
    ]

    @Test(arguments: hostile)
    func hostileStringsInTextAndAttributes(input: String, escaped: String) throws {
        #expect(try render("<p>{{v}}</p>", ["v": .string(input)]) == "<p>\(escaped)</p>")
        #expect(
            try render("<input value=\"{{v}}\" title='{{v}}'>", ["v": .string(input)])
                == "<input value=\"\(escaped)\" title='\(escaped)'>")
    }

    @Test func escapedOutputNeverContainsMarkupCharacters() throws {
        let nasty = "<>&\"'`= \"><img src=x onerror=alert(1)>"
        let output = try render("{{v}}", ["v": .string(nasty)])
        #expect(!output.contains(where: { "<>\"'`=".contains($0) }))
    }

    /// The escaper tests eight bytes at a time and then byte by byte; every escaped character at every
    /// offset of values of every length up to 40 (and a few non-ASCII neighbours) must come out as a
    /// plain character-by-character escaper makes it.
    @Test func everyEscapedCharacterAtEveryOffset() throws {
        let template = try Template(name: "t", source: "[{{v}}]")
        let specials: [Character] = ["&", "<", ">", "\"", "'", "`", "=", "\0", "#", "?", "\u{1}", "é"]
        let filler = Array("abcdefghij klmnop!qrs;tuv/wxyz#0123?456789")
        for length in 0...40 {
            let plain = String(filler[0..<length])
            #expect(try template.render(["v": .string(plain)]) == "[" + referenceEscape(plain) + "]")
            for offset in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(plain)
                    if offset < characters.count { characters[offset] = special } else { characters.append(special) }
                    // A second one further on: runs between escapes, and escapes in the last eight bytes.
                    if length > 10 {
                        characters[(offset + 9) % characters.count] = specials[(offset + 3) % specials.count]
                    }
                    let value = String(characters)
                    #expect(
                        try template.render(["v": .string(value)]) == "[" + referenceEscape(value) + "]", "\(value)")
                }
            }
        }
    }

    /// Long values, all escapes or mixed, make the page grow while a value is being written.
    @Test func longValuesOfEscapes() throws {
        let template = try Template(name: "t", source: "<p title=\"{{v}}\">{{v}}</p>")
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab \"'<>&=`#?é\0z")
        for length in [17, 100, 1_000, 10_000, 100_000] {
            let quotes = String(repeating: "\"", count: length)
            #expect(
                try template.render(["v": .string(quotes)])
                    == "<p title=\"" + String(repeating: "&quot;", count: length) + "\">"
                    + String(repeating: "&quot;", count: length) + "</p>")
            let mixed = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let escaped = referenceEscape(mixed)
            #expect(try template.render(["v": .string(mixed)]) == "<p title=\"\(escaped)\">\(escaped)</p>")
        }
    }

    @Test func alreadyEscapedTextIsEscapedAgain() throws {
        // The engine cannot know a value was escaped before; callers pass plain text.
        #expect(try render("{{v}}", ["v": "&lt;"]) == "&amp;lt;")
        #expect(try render("{{{v}}}", ["v": "&lt;"]) == "&lt;")
    }
}

@Suite struct SectionTests {
    @Test func sectionOverListOfDictionariesWithOuterScopeLookup() throws {
        let context: MustacheValue = [
            "site": "HAR",
            "rows": [["name": "Abbey", "site": "inner"], ["name": "Barn"]],
        ]
        #expect(try render("{{#rows}}{{name}}@{{site}};{{/rows}}", context) == "Abbey@inner;Barn@HAR;")
    }

    @Test func booleansAndValues() throws {
        #expect(try render("{{#t}}yes{{/t}}{{#f}}no{{/f}}", ["t": true, "f": false]) == "yes")
        #expect(try render("{{#n}}no{{/n}}{{#missing}}no{{/missing}}", ["n": nil]) == "")
        #expect(try render("{{#s}}[{{.}}]{{/s}}", ["s": "text"]) == "[text]")
        #expect(try render("{{#e}}no{{/e}}", ["e": ""]) == "")
        #expect(try render("{{#o}}{{k}}{{/o}}", ["o": ["k": "v"]]) == "v")
        #expect(try render("{{#zero}}{{.}}{{/zero}}", ["zero": 0]) == "0")
    }

    @Test func invertedSections() throws {
        let template = "{{^x}}none{{/x}}"
        #expect(try render(template, ["x": []]) == "none")
        #expect(try render(template, ["x": false]) == "none")
        #expect(try render(template, ["x": nil]) == "none")
        #expect(try render(template, [:]) == "none")
        #expect(try render(template, ["x": ""]) == "none")
        #expect(try render(template, ["x": [1]]) == "")
        #expect(try render(template, ["x": true]) == "")
        #expect(
            try render("{{#rows}}{{.}}{{/rows}}{{^rows}}No reports yet.{{/rows}}", ["rows": []])
                == "No reports yet.")
    }

    @Test func nestedSections() throws {
        let context: MustacheValue = ["groups": [["title": "A", "items": [1, 2]], ["title": "B", "items": []]]]
        let template = "{{#groups}}{{title}}:{{#items}}{{.}},{{/items}}{{^items}}-{{/items}};{{/groups}}"
        #expect(try render(template, context) == "A:1,2,;B:-;")
    }

    @Test func comments() throws {
        #expect(try render("a{{! a comment }}b", [:]) == "ab")
        #expect(try render("a{{!\n multi\n line }}b", [:]) == "ab")
    }
}

/// What the escaper must produce, written the plain way: one scalar at a time.
func referenceEscape(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        case "`": escaped += "&#96;"
        case "=": escaped += "&#61;"
        case "\0": escaped += "\u{FFFD}"
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}
