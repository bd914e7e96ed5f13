import Testing

@testable import Mustache

/// A dictionary literal makes ordered fields; a later duplicate key replaces the earlier value in its
/// place. Keys are compared as Swift strings (Unicode equivalence), not byte for byte.
@Suite struct FieldsTests {
    @Test func laterDuplicatesReplaceEarlierValuesInPlace() throws {
        let fields: MustacheFields = ["a": 1, "b": 2, "a": 3, "c": 4, "b": 5]
        #expect(fields.fields.map(\.key) == ["a", "b", "c"])
        #expect(fields.fields.map(\.value) == [3, 5, 4])
        #expect(try render("{{a}}{{b}}{{c}}", .fields(fields)) == "354")
    }

    @Test func keysAreComparedUnderUnicodeEquivalence() throws {
        // U+212A KELVIN SIGN is canonically "K"; "é" precomposed and decomposed are the same key.
        let kelvin: MustacheFields = ["\u{212A}ey": 1, "Key": 2]
        #expect(kelvin.fields.count == 1)
        #expect(kelvin["Key"] == 2)
        let accent: MustacheFields = ["caf\u{E9}": "composed", "x": 0, "cafe\u{301}": "decomposed"]
        #expect(accent.fields.map(\.key) == ["caf\u{E9}", "x"])
        #expect(try render("{{Key}} {{café}}", .fields(kelvin.merging(accent))) == "2 decomposed")
    }

    @Test func manyKeysWithSimilarFingerprints() throws {
        // Same length, first, middle and last bytes: only == tells them apart.
        let keys = ["abxa", "abya", "acxa", "abza", "abxa"]
        let fields = MustacheFields(keys.enumerated().map { ($1, MustacheValue.int($0)) })
        #expect(fields.fields.map(\.key) == ["abxa", "abya", "acxa", "abza"])
        #expect(fields["abxa"] == 4)
        let long = (0..<40).map { ("key\($0)", MustacheValue.int($0)) }
        #expect(MustacheFields(long + [("key7", 99)]).fields.count == 40)
        #expect(MustacheFields(long + [("key7", 99)])["key7"] == 99)
        #expect(MustacheFields(long).fields.map(\.key) == long.map(\.0))
    }
}

extension MustacheFields {
    fileprivate func merging(_ other: MustacheFields) -> MustacheFields {
        MustacheFields(fields.map { ($0.key, $0.value) } + other.fields.map { ($0.key, $0.value) })
    }
}
