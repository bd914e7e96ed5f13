import Foundation
import TestSupport
import Testing

@testable import Mustache

/// A directory of template files under /tmp, removed afterwards.
final class TemplateDirectory {
    let scratch = TemporaryDirectory(prefix: "har-mustache-test")
    var path: String { scratch.path }

    init(_ files: [String: String]) {
        for (name, contents) in files {
            let file = scratch.file(name)
            if let slash = file.lastIndex(of: "/") {
                try? FileManager.default.createDirectory(
                    atPath: String(file[..<slash]), withIntermediateDirectories: true)
            }
            scratch.write(Array(contents.utf8), to: name)
        }
    }
}

@Suite struct TemplateDirectoryTests {
    @Test func loadsEveryTemplateOnceByRelativeName() throws {
        let directory = TemplateDirectory([
            "list.mustache": "{{> partials/header}}\n{{#rows}}\n  {{> partials/row}}\n{{/rows}}\n",
            "partials/header.mustache": "<h1>{{title}}</h1>\n",
            "partials/row.mustache": "<p>{{name}}</p>\n",
            "notes.txt": "{{#ignored",
            ".hidden.mustache": "{{#ignored",
        ])
        let library = try TemplateLibrary(directory: directory.path)
        #expect(library.names == ["list", "partials/header", "partials/row"])
        // Compiled once: deleting the files does not affect rendering.
        _ = system("rm -rf '\(directory.path)'/*")
        #expect(
            try library.render("list", ["title": "Sites", "rows": [["name": "a"], ["name": "b"]]])
                == "<h1>Sites</h1>\n  <p>a</p>\n  <p>b</p>\n")
    }

    @Test func brokenFileIsNamedWithItsLine() throws {
        let directory = TemplateDirectory([
            "good.mustache": "fine",
            "partials/bad.mustache": "<div>\n{{#open}}\n</div>\n",
        ])
        let error = try #require(throws: MustacheError.self) { try TemplateLibrary(directory: directory.path) }
        #expect(error.file == directory.path + "/partials/bad.mustache")
        #expect(error.line == 2)
        #expect(
            error.description
                == "\(directory.path)/partials/bad.mustache:2: unclosed section {{#open}}: no {{/open}} before the end")
    }

    @Test func unknownPartialInAFileIsNamedWithItsLine() throws {
        let directory = TemplateDirectory(["page.mustache": "x\n{{> nowhere}}"])
        let error = try #require(throws: MustacheError.self) { try TemplateLibrary(directory: directory.path) }
        #expect(error.description == "\(directory.path)/page.mustache:2: unknown partial {{> nowhere}}")
    }

    @Test func missingDirectoryIsAnError() throws {
        #expect(throws: MustacheError.self) { try TemplateLibrary(directory: "/nonexistent/templates") }
    }

    /// A page is written into an array reserved from the last page's size: pages that grow past it,
    /// shrink far below it and come back must all be complete.
    @Test func pagesOfChangingSizeFromOneTemplate() throws {
        let library = try TemplateLibrary(sources: ["list": "<ul>{{#rows}}<li>{{name}}</li>{{/rows}}</ul>"])
        for count in [0, 1, 40, 3, 2_000, 0, 700, 5_000, 12, 5_001] {
            let rows = MustacheValue.array((0..<count).map { ["name": .string("row <\($0)>")] })
            let expected = "<ul>" + (0..<count).map { "<li>row &lt;\($0)&gt;</li>" }.joined() + "</ul>"
            #expect(try library.render("list", ["rows": rows]) == expected, "\(count) rows")
            #expect(try library.renderBytes("list", ["rows": rows]) == Array(expected.utf8))
        }
    }

    @Test func renderingFiftyRowsIsStable() throws {
        let library = try TemplateLibrary(sources: [
            "list": """
            <table>
              {{#rows}}
              <tr><td>{{name}}</td><td>{{status}}</td><td><a href="/reports/{{id}}" title="{{name}}">open</a></td></tr>
              {{/rows}}
              {{^rows}}<tr><td>None</td></tr>{{/rows}}
            </table>

            """
        ])
        let rows: [MustacheValue] = (0..<50).map {
            ["name": "Site <\($0)> & 'co'", "status": "uploading", "id": .int($0)]
        }
        let context: MustacheValue = ["rows": .array(rows)]
        // Speed is measured by bench/run, never here: this checks that repeated renders of one compiled
        // template give the same, complete page.
        let first = try library.render("list", context)
        for _ in 0..<100 { #expect(try library.render("list", context) == first) }
        #expect(first.split(separator: "\n").filter { $0.contains("<tr><td>Site") }.count == 50)
        #expect(first.contains("Site &lt;49&gt; &amp; &#39;co&#39;"))
    }
}
