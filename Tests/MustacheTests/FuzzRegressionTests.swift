// The fuzz harness's inputs as ordinary tests: every seed (Fuzz/corpus/NAME) and every input that ever
// made the harness fail (Fuzz/regressions/NAME, written there by scripts/fuzz) goes through the same code
// with the same checks as in Fuzz/Harnesses/NAME.swift, so a fixed finding stays fixed without libFuzzer.
import Foundation
import TestSupport
import Testing

@testable import Mustache

@Suite struct MustacheFuzzRegressionTests {
    @Test func templatesParseAndRenderOrFailCleanly() throws {
        let context = MustacheValue.dictionary([
            "name": .string("<b>&\"'"), "count": .int(3), "ratio": .double(0.5), "yes": .bool(true),
            "no": .bool(false), "none": .null,
            "list": .array([.string("a"), .dictionary(["name": .string("inner")]), .array([.int(1)])]),
            "empty": .array([]), "nested": .dictionary(["deep": .dictionary(["name": .string("x")])]),
            "fields": .fields(MustacheFields([("name", .string("f")), ("list", .array([.bool(true)]))])),
        ])
        let inputs = try fuzzInputs("mustache")
        #expect(inputs.count >= 5)
        var rendered = 0
        for (_, bytes) in inputs {
            let source = String(decoding: bytes, as: UTF8.self)
            guard let library = try? TemplateLibrary(sources: ["main": source, "other": "{{name}}{{>main}}"]),
                (try? library.render("main", context)) != nil
            else { continue }
            rendered += 1
        }
        #expect(rendered >= 3)  // most seeds are valid templates
    }
}
