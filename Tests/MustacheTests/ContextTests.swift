import Testing

@testable import Mustache

/// The renderer looks names up by pointing into the contexts rather than copying values out (see
/// ContextStack); these cases are the ones where that could go wrong: values found in Swift
/// dictionaries (copied into one held slot that the next lookup replaces), a stack that grows while
/// a frame is pushed from itself, and strings on both sides of the small-string limit.
@Suite struct ContextTests {
    /// More than 8 keys, so it is hashed rather than searched key by key.
    static let largeDictionary: MustacheValue = .dictionary(
        Dictionary(uniqueKeysWithValues: (0..<12).map { ("k\($0)", MustacheValue.string("v\($0)")) }))

    @Test func sectionsOverValuesFoundInDictionariesSurviveLaterLookups() throws {
        for t in [Self.largeDictionary, .dictionary(["k1": "v1", "k2": "v2"])] {
            let context: MustacheValue = .dictionary([
                "t": t,
                "items": .array([.dictionary(["name": "a", "inner": .dictionary(["x": "1"])]), ["name": "b"]]),
                "group": .dictionary(["list": ["p", "q"], "title": "G"]),
            ])
            #expect(
                try render(
                    "{{#items}}{{t.k1}}{{name}}{{#inner}}{{t.k2}}{{x}}{{name}}{{/inner}}{{t.k1}};{{/items}}", context)
                    == "v1av2" + "1a" + "v1;v1bv1;")
            #expect(
                try render("{{#group.list}}{{.}}{{t.k2}}{{group.title}}{{.}}|{{/group.list}}", context)
                    == "pv2Gp|qv2Gq|")
            #expect(try render("{{#group}}{{#list}}[{{title}}{{.}}]{{/list}}{{/group}}", context) == "[Gp][Gq]")
        }
    }

    @Test func dottedNamesThroughDictionariesAndFields() throws {
        let context: MustacheValue = .dictionary([
            "a": [
                "b": .dictionary([
                    "c": ["d": "deep"], "filler1": 1, "f2": 2, "f3": 3, "f4": 4, "f5": 5, "f6": 6, "f7": 7, "f8": 8,
                ])
            ]
        ])
        #expect(
            try render("{{a.b.c.d}}|{{#a.b.c}}{{d}}{{a.b.f8}}{{/a.b.c}}|{{a.b.missing.d}}", context) == "deep|deep8|")
    }

    @Test func deepNestingGrowsTheStackWhilePushingFromIt() throws {
        // 40 nested single-element arrays, then `{{#.}}` pushes the innermost frame onto itself.
        var value: MustacheValue = ["name": "innermost", "long": .string(String(repeating: "é<", count: 20))]
        for level in 0..<40 { value = ["level": .int(level), "next": [value]] }
        var open = ""
        var close = ""
        for _ in 0..<40 {
            open += "{{#next}}"
            close = "{{/next}}" + close
        }
        let template = open + "{{#.}}{{#.}}{{name}}:{{level}}:{{long}}{{/.}}{{/.}}" + close
        #expect(
            try render(template, value) == "innermost:0:" + String(repeating: "é&lt;", count: 20))
    }

    @Test func stringsAroundTheSmallStringLimit() throws {
        for length in [0, 1, 7, 8, 14, 15, 16, 17, 31, 100] {
            let ascii = String(repeating: "a", count: max(length - 1, 0)) + (length > 0 ? "<" : "")
            let accented = String(repeating: "é", count: length / 2)
            // Built at run time, so a string is native (small up to 15 bytes), not a literal.
            let built = String(decoding: Array(ascii.utf8), as: UTF8.self)
            for value in [ascii, accented, built] {
                let escaped = value.replacing("<", with: "&lt;")
                #expect(
                    try render("{{v}}|{{{v}}}|{{#v}}{{.}}{{/v}}", ["v": .string(value)])
                        == "\(escaped)|\(value)|\(escaped)")
                #expect(try render("{{v}}", .dictionary(["v": .string(value)])) == escaped)
            }
        }
    }

    /// Lookups try first where a key was found last time (a hint shared by all renders of the
    /// program); rows whose keys come in other orders, or are missing, must not be misled by it.
    @Test func rowsWithKeysInDifferentOrdersOrMissing() throws {
        let library = try TemplateLibrary(sources: ["list": "{{#rows}}[{{a}}{{b}}{{c}}{{site}}]{{/rows}}"])
        let rows: [MustacheValue] = [
            ["a": "1", "b": "2", "c": "3"], ["c": "3", "b": "2", "a": "1"], ["b": "2"], ["x": "0", "c": "3", "a": "1"],
            ["site": "inner", "a": "1"], [:], ["a": "1", "b": "2", "c": "3"],
        ]
        let expected = "[123S][123S][2S][13S][1inner][S][123S]"
        #expect(try library.render("list", ["site": "S", "rows": .array(rows)]) == expected)
        #expect(
            try library.render("list", ["rows": .array(rows.reversed()), "site": "S"])
                == "[123S][S][1inner][13S][2S][123S][123S]")
    }

    @Test func concurrentRendersWithDifferentShapes() async throws {
        let library = try TemplateLibrary(sources: ["list": "{{#rows}}{{name}}:{{id}};{{/rows}}{{title}}"])
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var ok = true
                    for round in 0..<200 {
                        let count = (task + round) % 7
                        let rows: [MustacheValue] = (0..<count).map { index in
                            task % 2 == 0
                                ? ["name": .string("n\(index)"), "id": .int(index)]
                                : ["id": .int(index), "extra": true, "name": .string("n\(index)")]
                        }
                        let context: MustacheValue =
                            task % 3 == 0
                            ? ["title": "T", "rows": .array(rows)] : ["rows": .array(rows), "title": "T"]
                        let expected = (0..<count).map { "n\($0):\($0);" }.joined() + "T"
                        ok = try library.render("list", context) == expected && ok
                    }
                    return ok
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    /// Field lists of 5 keys or more carry fingerprints of their keys, and a lookup skips a key whose
    /// fingerprint differs from the name's: names missing from a row, keys with the same fingerprint
    /// as the name, and non-ASCII keys equal to the name must all still be found or not found.
    @Test func namesMissingFromWideRows() throws {
        let library = try TemplateLibrary(sources: [
            "list": "{{#rows}}{{csrf}}|{{Key}}|{{abxa}}|{{t.ok}};{{/rows}}"
        ])
        let rows: [MustacheValue] = [
            ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5],
            ["a": 1, "b": 2, "c": 3, "d": 4, "\u{212A}ey": "kelvin"],
            ["abya": 1, "acxa": 2, "abza": 3, "abxa": "same print", "e": 5],
            ["a": 1, "b": 2, "c": 3, "d": 4, "csrf": "inner"],
        ]
        let context: MustacheValue = [
            "csrf": "outer", "Key": "K", "abxa": "A", "t": .dictionary(["ok": "OK"]), "rows": .array(rows),
        ]
        #expect(
            try library.render("list", context)
                == "outer|K|A|OK;outer|kelvin|A|OK;outer|K|same print|OK;inner|K|A|OK;")
    }

    /// A name resolved through a Swift dictionary is remembered with the frame it was found in, and
    /// reused only while that same frame is where the search reaches: never for another element of
    /// a list, nor when an inner context has the name.
    @Test func namesResolvedThroughDictionariesAreNotReusedAcrossFrames() throws {
        let library = try TemplateLibrary(sources: [
            "page": "{{#items}}[{{d.x}}{{t.k}}{{#inner}}{{d.x}}{{/inner}}]{{/items}}{{d.x}}{{t.k}}",
            "tree": "{{d.x}}{{#children}}({{>tree}}){{/children}}",
        ])
        let items: [MustacheValue] = [
            .dictionary(["d": .dictionary(["x": "1"])]),
            .dictionary(["other": true, "inner": .dictionary(["d": .dictionary(["x": "in"])])]),
            .dictionary(["d": .dictionary(["x": "3"]), "t": .dictionary(["k": "K3"])]),
            ["inner": true],
            .dictionary(["d": Self.largeDictionary]),
        ]
        let root: MustacheValue = .dictionary([
            "items": .array(items), "d": .dictionary(["x": "root"]), "t": .dictionary(["k": "K"]),
        ])
        #expect(
            try library.render("page", root)
                == "[1K][rootKin][3K3][rootKroot][K]rootK")
        let tree: MustacheValue = .dictionary([
            "d": .dictionary(["x": "a"]),
            "children": [
                .dictionary(["d": .dictionary(["x": "b"]), "children": []]),
                .dictionary(["children": [.dictionary(["d": .dictionary(["x": "c"]), "children": []])]]),
            ],
        ])
        #expect(try library.render("tree", tree) == "a(b)(a(c))")
    }
}
