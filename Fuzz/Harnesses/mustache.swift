// libFuzzer harness: the Mustache parser and renderer. The input is a template (bytes as UTF-8, invalid
// sequences repaired as String(decoding:) does); it is parsed as two templates of a library, one of which
// may include the other or itself as a partial, then rendered with a small context of every value kind.
// Any parse or render error is fine; a crash, a hang or a sanitizer report is a finding.

let fuzzContext = MustacheValue.dictionary([
    "name": .string("<b>&\"'"), "count": .int(3), "ratio": .double(0.5), "yes": .bool(true), "no": .bool(false),
    "none": .null, "list": .array([.string("a"), .dictionary(["name": .string("inner")]), .array([.int(1)])]),
    "empty": .array([]), "nested": .dictionary(["deep": .dictionary(["name": .string("x")])]),
    "fields": .fields(MustacheFields([("name", .string("f")), ("list", .array([.bool(true)]))])),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMustache(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let source = String(decoding: bytes, as: UTF8.self)
    if let library = try? TemplateLibrary(sources: ["main": source, "other": "{{name}}{{>main}}"]) {
        _ = try? library.render("main", fuzzContext)
    }
    return 0
}
