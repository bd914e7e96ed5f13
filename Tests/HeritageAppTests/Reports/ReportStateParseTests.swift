import Testing

@testable import HeritageApp

/// `ReportState.parse` (the list's rows read their state by length) answers as `init(rawValue:)`
/// does: every state, and strings that are near misses of one.
@Suite struct ReportStateParseTests {
    @Test func everyStateIsParsedAsItsRawValue() {
        for state in ReportState.allCases {
            #expect(ReportState.parse(state.rawValue) == state, "\(state.rawValue)")
        }
    }

    @Test func nearMissesAreParsedAsInitRawValueParsesThem() {
        var texts = ["", " ", "x", "QUEUED", "Queued", "queued ", " queued", "retry-wait", "needs_attentioN", "héld"]
        for state in ReportState.allCases {
            let name = state.rawValue
            texts.append(String(name.dropLast()))
            texts.append(name + "s")
            texts.append(name.uppercased())
            texts.append(String(name.reversed()))
            texts.append("x" + name.dropFirst())
            texts.append(name.dropLast() + "x")
        }
        for text in texts {
            #expect(ReportState.parse(text) == ReportState(rawValue: text), "\(text)")
        }
    }
}
