// libFuzzer harness: the e-mail address rule (RFC 5322 addr-spec) of the sign-in form. Checked on every
// input: an address called valid is 1-254 bytes of printable ASCII (space and tab only inside quotes),
// has an "@" with something on both sides, and no line break or NUL.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAddress(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let address = String(decoding: bytes, as: UTF8.self)
    guard AddressSpec.isValid(address) else { return 0 }
    let utf8 = Array(address.utf8)
    guard (1...AddressSpec.maximumLength).contains(utf8.count),
        utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }),
        let at = utf8.lastIndex(of: UInt8(ascii: "@")), at > 0, at < utf8.count - 1
    else { fatalError("accepted \(address.debugDescription)") }
    return 0
}
