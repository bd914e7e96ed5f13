// libFuzzer harness: decoding what the platform answers (its JSON bodies, through the lenient decoding
// rules of the platform models) and its ISO 8601 dates. The input is one JSON body, decoded as each
// answer type the client reads; then as a date string. Checked on every input: whatever decodes encodes
// again, and from the first encoding on, round trips change nothing; a parsed date formats to text that
// parses to the same instant (within a millisecond).
import FoundationEssentials

func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ data: Data) {
    guard let value = try? JSONDecoder().decode(type, from: data) else { return }
    guard let encoded = try? JSONEncoder().encode(value) else { fatalError("\(T.self) decoded but does not encode") }
    // The first encoding may round (dates keep microseconds); from then on nothing may change.
    guard let again = try? JSONDecoder().decode(type, from: encoded), let reencoded = try? JSONEncoder().encode(again),
        let third = try? JSONDecoder().decode(type, from: reencoded), third == again
    else {
        fatalError("\(T.self) does not survive a round trip: \(String(decoding: encoded, as: UTF8.self))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlatformJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let data = Data(bytes)
    roundTrip(PlatformSession.self, data)
    roundTrip([PlatformReport].self, data)
    roundTrip(PlatformReport.self, data)
    roundTrip(CreatedReport.self, data)
    roundTrip(UploadedPhoto.self, data)
    roundTrip(NewReport.self, data)
    roundTrip(PlatformPhoto.self, data)

    let text = String(decoding: bytes, as: UTF8.self)
    if let date = ISO8601.parse(text) {
        let formatted = ISO8601.format(date)
        guard let again = ISO8601.parse(formatted), abs(again.timeIntervalSince(date)) < 0.001 else {
            fatalError("ISO 8601 \(text.debugDescription) -> \(formatted) does not parse back")
        }
    }
    return 0
}
