import Testing

@testable import Mustache

@Suite struct PartialTests {
    @Test func partialSeesTheCallersContext() throws {
        let library = try TemplateLibrary(sources: [
            "list": "{{>partials/header}}{{#rows}}{{>row}}{{/rows}}",
            "partials/header": "<h1>{{title}}</h1>",
            "row": "<p>{{name}} ({{title}})</p>",
        ])
        #expect(
            try library.render("list", ["title": "T", "rows": [["name": "a"], ["name": "b"]]])
                == "<h1>T</h1><p>a (T)</p><p>b (T)</p>")
    }

    @Test func recursivePartialRendersATreeAndStopsAtTheDepthLimit() throws {
        let library = try TemplateLibrary(
            sources: ["node": "{{name}}{{#children}}({{>node}}){{/children}}"], maximumPartialDepth: 4)
        // Leaves need "children": [] — otherwise, per the spec, lookup finds the parent's children.
        let tree: MustacheValue = [
            "name": "a", "children": [["name": "b", "children": [["name": "c", "children": []]]]],
        ]
        #expect(try library.render("node", tree) == "a(b(c))")

        var deep: MustacheValue = ["name": "x"]
        for _ in 0..<10 { deep = ["name": "x", "children": [deep]] }
        let error = try #require(throws: MustacheError.self) { try library.render("node", deep) }
        #expect(error.reason == .partialDepthExceeded(4))

        let loop = try TemplateLibrary(sources: ["a": "{{>b}}", "b": "{{>a}}"])
        #expect(throws: MustacheError.self) { try loop.render("a", [:]) }
    }

    @Test func partialTagsAreLinkedAtLoadAndErrorsNameTheCallingTemplate() throws {
        let library = try TemplateLibrary(
            sources: [
                "page": "<{{>a}}|{{#items}}{{>b}}{{/items}}>", "a": "A{{>b}}", "b": "[{{.}}]",
                "deep": "x\n{{#on}}{{>deep}}{{/on}}",
            ], maximumPartialDepth: 3)
        #expect(try library.render("page", ["items": [1, 2]]) == "<A[]|[1][2]>")  // `{{.}}` of fields is empty
        let error = try #require(throws: MustacheError.self) { try library.render("deep", ["on": true]) }
        #expect(error.reason == .partialDepthExceeded(3))
        #expect(error.template == "deep")
        #expect(error.line == 2)
        // A library's template rendered on its own has no partials, as a Template made alone.
        let alone = try #require(library.templates["a"])
        let unknown = try #require(throws: MustacheError.self) { try alone.render([:]) }
        #expect(unknown.reason == .unknownPartial("b"))
        #expect(unknown.template == "a")
    }

    @Test func unknownTemplateAtRender() throws {
        let library = try TemplateLibrary(sources: ["a": "x"])
        let error = try #require(throws: MustacheError.self) { try library.render("nope", [:]) }
        #expect(error.reason == .unknownTemplate("nope"))
        #expect(error.description.contains("unknown template 'nope'"))
    }

    @Test func standaloneTemplateHasNoPartials() throws {
        let template = try Template(name: "alone", source: "a{{>other}}")
        #expect(throws: MustacheError.self) { try template.render([:]) }
        #expect(try Template(name: "t", source: "{{x}}").render(["x": "<"]) == "&lt;")
    }
}
