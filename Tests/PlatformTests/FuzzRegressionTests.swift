import Basics
// The fuzz harness's inputs as ordinary tests: every seed (Fuzz/corpus/NAME) and every input that ever
// made the harness fail (Fuzz/regressions/NAME, written there by scripts/fuzz) goes through the same code
// with the same checks as in Fuzz/Harnesses/NAME.swift, so a fixed finding stays fixed without libFuzzer.
import Foundation
import Testing

// The platform models' module: the one line to change when they move.
@testable import PlatformClient

@Suite struct PlatformJSONFuzzRegressionTests {
    /// What decodes encodes again, and from the first encoding on round trips change nothing.
    func roundTrips<T: Codable & Equatable>(_ type: T.Type, _ data: Data, _ file: String) -> Bool {
        guard let value = try? JSONDecoder().decode(type, from: data) else { return false }
        let encoded = try? JSONEncoder().encode(value)
        let again = encoded.flatMap { try? JSONDecoder().decode(type, from: $0) }
        let third = again.flatMap { try? JSONEncoder().encode($0) }.flatMap {
            try? JSONDecoder().decode(type, from: $0)
        }
        #expect(again != nil && third == again, "\(file): \(T.self)")
        return true
    }

    @Test func answersAndDates() throws {
        let inputs = try fuzzInputs("platform-json")
        #expect(inputs.count >= 5)
        var decoded = 0
        for (file, bytes) in inputs {
            let data = Data(bytes)
            let results = [
                roundTrips(PlatformSession.self, data, file), roundTrips([PlatformReport].self, data, file),
                roundTrips(PlatformReport.self, data, file), roundTrips(CreatedReport.self, data, file),
                roundTrips(UploadedPhoto.self, data, file), roundTrips(NewReport.self, data, file),
                roundTrips(PlatformPhoto.self, data, file),
            ]
            if results.contains(true) { decoded += 1 }
            let text = String(decoding: bytes, as: UTF8.self)
            if let date = ISO8601.parse(text) {
                let again = ISO8601.parse(ISO8601.format(date))
                #expect(again.map { abs($0.timeIntervalSince(date)) < 0.001 } == true, "\(file)")
            }
        }
        #expect(decoded >= 4)
    }

    /// The harness's first stop (its round-trip check was then too strict): a fraction of a second
    /// with a hundred digits parses, to microseconds that then stay the same from one encoding to the next.
    @Test func longFractionOfASecond() throws {
        let json = #"{"photo_id":"p","creation_time":"1970-01-01T00:00:00.5555555555555555555555555555555555555Z"}"#
        let photo = try JSONDecoder().decode(UploadedPhoto.self, from: Data(json.utf8))
        let seconds = try #require(photo.creationTime).timeIntervalSince1970
        #expect(abs(seconds - 0.5555555) < 1e-6)
    }

    /// Found by fuzzing: "9999-12-31T23:59:60Z" parsed to an instant in the year 10000, which `format`
    /// writes with five digits and `parse` then refused, so a stored date no longer read back. Dates are
    /// now only accepted within the years 0000 to 9999 UTC, whatever the offset, leap second or fraction.
    @Test(arguments: [
        "9999-12-31T23:59:60Z", "9999-12-31T23:59:59-00:01", "9999-12-31T23:59:59.9999999Z",
        "0000-01-01T00:00:00+00:01", "0000-01-01T00:59:59.5+01:00",
    ])
    func datesBeyondTheFourDigitYearsAreRefused(text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test(arguments: [
        "9999-12-31T23:59:59Z", "9999-12-31T23:59:59.999+00:00", "9999-12-31T23:59:60+01:00",
        "0000-01-01T00:00:00Z", "0000-01-01T00:00:00-01:00", "2026-11-29T15:41:17+01:00",
    ])
    func datesAtTheEdgesStillRoundTrip(text: String) throws {
        let date = try #require(ISO8601.parse(text))
        let again = try #require(ISO8601.parse(ISO8601.format(date)))
        #expect(abs(again.timeIntervalSince(date)) < 0.001)
    }
}
