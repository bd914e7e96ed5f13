// libFuzzer harness: the header values the server interprets itself. The input is split at its first
// newline: the first line is one header value (a Cookie header, a Content-Type, an If-None-Match list),
// the rest a header name to look up. Checked on every input: cookies have token names, printable values
// without separators, at most 64 of them; a multipart boundary has no surrounding quotes left when it
// had both; name comparison ignores ASCII case only and agrees with a lower-cased comparison for ASCII;
// a value called safe for the wire has no CR, LF or NUL.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHeaders(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
    let value = String(decoding: bytes[..<newline], as: UTF8.self)
    let name = newline < bytes.endIndex ? String(decoding: bytes[(newline + 1)...], as: UTF8.self) : ""

    let cookies = Decoding.cookies(value)
    guard cookies.count <= 64 else { fatalError("\(cookies.count) cookies") }
    for (cookie, content) in cookies {
        guard !cookie.isEmpty, cookie.utf8.allSatisfy(Decoding.isTokenByte),
            content.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") })
        else { fatalError("cookie \(cookie.debugDescription)=\(content.debugDescription)") }
    }

    if let boundary = BodyReader.boundary(value), boundary.count >= 2, boundary.hasPrefix("\""),
        boundary.hasSuffix("\""), !value.contains("\"\"")
    {
        fatalError("boundary keeps its quotes: \(boundary.debugDescription) from \(value.debugDescription)")
    }

    _ = Conditional.noneMatchFails(value, tag: "\"1f-5f5e1000\"")
    if Decoding.isSafeHeaderValue(value), value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) {
        fatalError("unsafe value passed: \(value.debugDescription)")
    }

    var headers = Headers([("Content-Type", "text/plain"), ("Cookie", value), (value, name)])
    headers.add(name, value)
    _ = headers[name]
    _ = headers["cookie"]
    if name.utf8.allSatisfy({ $0 < 0x80 }), value.utf8.allSatisfy({ $0 < 0x80 }) {
        let expected = name.lowercased() == value.lowercased()
        if Headers.namesEqual(name, value) != expected {
            fatalError("namesEqual(\(name.debugDescription), \(value.debugDescription)) != \(expected)")
        }
    }
    return 0
}
