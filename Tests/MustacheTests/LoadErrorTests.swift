import Testing

@testable import Mustache

@Suite struct LoadErrorTests {
    func loadError(_ source: String, partials: [String: String] = [:]) throws -> MustacheError {
        var sources = partials
        sources["page"] = source
        return try #require(throws: MustacheError.self) { try TemplateLibrary(sources: sources) }
    }

    @Test func unclosedSectionReportsWhereItOpened() throws {
        let error = try loadError("line 1\n{{#rows}}\n<p>\n")
        #expect(error.reason == .unclosedSection("rows"))
        #expect(error.line == 2)
        #expect(error.description == "page:2: unclosed section {{#rows}}: no {{/rows}} before the end")
    }

    @Test func mismatchedAndUnexpectedCloseTags() throws {
        let mismatched = try loadError("{{#a}}\n{{#b}}\n{{/a}}\n{{/b}}")
        #expect(mismatched.reason == .mismatchedClose(expected: "b", found: "a"))
        #expect(mismatched.line == 3)
        let unexpected = try loadError("x\n\n{{/a}}")
        #expect(unexpected.reason == .unexpectedClose("a"))
        #expect(unexpected.line == 3)
    }

    @Test func unclosedTags() throws {
        let error = try loadError("ok\nok {{name\nmore")
        #expect(error.reason == .unclosedTag)
        #expect(error.line == 2)
        #expect(try loadError("{{{raw}}").reason == .unclosedTag)
    }

    @Test func unknownPartialIsALoadError() throws {
        let error = try loadError("a\nb\n  {{> partials/missing}}\n", partials: ["partials/header": "h"])
        #expect(error.reason == .unknownPartial("partials/missing"))
        #expect(error.line == 3)
        #expect(error.template == "page")
    }

    @Test func delimiterChangesEmptyTagsAndBadNamesAreRefused() throws {
        #expect(try loadError("{{=<% %>=}}").reason == .delimiterChangeUnsupported)
        #expect(try loadError("{{ }}").reason == .emptyTag)
        #expect(try loadError("{{a b}}").reason == .invalidName("a b"))
        #expect(try loadError("{{a..b}}").reason == .invalidName("a..b"))
    }
}
