// The streaming JSON reader behind `har sites import` (SITE-01): the walk of a document's outer
// structure, each value taken whole, RFC 8259's grammar, and the limits that keep a hostile file small.
import Basics
import Foundation
import Testing

@Suite struct JSONStreamReaderTests {
    static func reader(_ text: String, limits: JSONStreamLimits = JSONStreamLimits()) -> JSONStreamReader {
        JSONStreamReader(bytes: Array(text.utf8), limits: limits)
    }

    /// The members of `{"a": …, "items": [ … ]}` walked one at a time, values taken across buffer refills.
    @Test func site01WalksAnObjectAndItsArrayElementByElement() throws {
        let reader = Self.reader(
            #"""
             { "name" : "register", "items": [ {"n": 1, "s": "a\"b\\c\/\u00e9\ud83d\ude00\n"},
               [true, false, null, -0.5e2, 12], "x" ], "skip": {"deep": [[[]]]}, "last": 3 }
            """#)
        try reader.beginObject()
        #expect(try reader.nextKey() == "name")
        #expect(try reader.value() == .string("register"))
        #expect(try reader.nextKey() == "items")
        #expect(try reader.nextIsArray())
        try reader.beginArray()
        var items: [JSONValue] = []
        while try reader.nextElement() { items.append(try reader.value()) }
        #expect(
            items == [
                .object(["n": .number(1), "s": .string("a\"b\\c/é😀\n")]),
                .array([.bool(true), .bool(false), .null, .number(-50), .number(12)]), .string("x"),
            ])
        #expect(try reader.nextKey() == "skip")
        try reader.skipValue()
        #expect(try reader.nextKey() == "last")
        #expect(try reader.value() == .number(3))
        #expect(try reader.nextKey() == nil)
        try reader.end()
        #expect(reader.line == 2)
    }

    @Test func site01EmptyContainers() throws {
        let reader = Self.reader(#"{"a": [], "b": {}}"#)
        try reader.beginObject()
        #expect(try reader.nextKey() == "a")
        try reader.beginArray()
        #expect(try !reader.nextElement())
        #expect(try reader.nextKey() == "b")
        #expect(try reader.value() == .object([:]))
        #expect(try reader.nextKey() == nil)
        try reader.end()
    }

    /// What RFC 8259 refuses is refused, with the line it is on.
    @Test(arguments: [
        "[1,]", "[01]", "[1.]", "[.5]", "[-]", "[1e]", "[+1]", "[NaN]", "[Infinity]", "[0x10]", "['a']",
        "[\"a\u{01}\"]", "[\"\\x\"]", "[\"\\ud800\"]", "[\"\\u12\"]", "[tru]", "[1 2]", "{\"a\" 1}", "{a: 1}",
        "[1]]", "[\"abc", "[1e999]",
    ])
    func site01RefusesWhatIsNotJSON(_ text: String) throws {
        let reader = Self.reader("\n" + text)
        #expect {
            try reader.beginArray()
            while try reader.nextElement() { _ = try reader.value() }
            try reader.end()
        } throws: { error in
            guard case .syntax(let line, _) = error as? JSONStreamError else { return false }
            return line == 2
        }
    }

    /// SITE-01: a document nested deeper than the limit, a string longer than it, a value of too many
    /// parts: each a clear error, read no further.
    @Test func site01LimitsDepthStringsAndValues() throws {
        let limits = JSONStreamLimits(maxDepth: 8, maxStringBytes: 16, maxValues: 100)
        let deep = Self.reader(
            "[" + String(repeating: "[", count: 20) + String(repeating: "]", count: 21), limits: limits)
        try deep.beginArray()
        #expect(try deep.nextElement())
        #expect(throws: JSONStreamError.tooDeep(line: 1, limit: 8)) { try deep.value() }

        let outer = Self.reader(String(repeating: "{\"a\":", count: 20), limits: limits)
        #expect(throws: JSONStreamError.tooDeep(line: 1, limit: 8)) {
            for _ in 0..<20 {
                try outer.beginObject()
                _ = try outer.nextKey()
            }
        }

        let long = Self.reader("[\"" + String(repeating: "x", count: 17) + "\"]", limits: limits)
        try long.beginArray()
        #expect(try long.nextElement())
        #expect(throws: JSONStreamError.stringTooLong(line: 1, limit: 16)) { try long.value() }
        let skipped = Self.reader("[\"" + String(repeating: "x", count: 17) + "\"]", limits: limits)
        try skipped.beginArray()
        #expect(try skipped.nextElement())
        #expect(throws: JSONStreamError.stringTooLong(line: 1, limit: 16)) { try skipped.skipValue() }

        let many = Self.reader("[[" + Array(repeating: "1", count: 200).joined(separator: ",") + "]]", limits: limits)
        try many.beginArray()
        #expect(try many.nextElement())
        #expect(throws: JSONStreamError.tooManyValues(line: 1, limit: 100)) { try many.value() }
        // The count is per value taken: many small values one after another are fine.
        let small = Self.reader(
            "[" + Array(repeating: "[1,2]", count: 200).joined(separator: ",") + "]", limits: limits)
        try small.beginArray()
        var count = 0
        while try small.nextElement() {
            _ = try small.value()
            count += 1
        }
        #expect(count == 200)
    }

    /// A file is read through its descriptor a buffer at a time, whatever its size.
    @Test func site01ReadsAFileThroughItsDescriptor() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let items = (0..<20_000).map { "{\"id\": \($0), \"name\": \"site \($0)\"}" }
        try ("[" + items.joined(separator: ",\n") + "]").write(toFile: path, atomically: true, encoding: .utf8)
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let reader = JSONStreamReader(fileDescriptor: descriptor)
        try reader.beginArray()
        var last: JSONValue?
        var count = 0
        while try reader.nextElement() {
            last = try reader.value()
            count += 1
        }
        try reader.end()
        #expect(count == 20_000 && last == .object(["id": .number(19_999), "name": .string("site 19999")]))
        #expect(reader.line == 20_000)
    }
}
