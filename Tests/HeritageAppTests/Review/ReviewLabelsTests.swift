import Foundation
import Mustache
import Testing

@testable import HeritageApp

/// `ReviewLabels` (REV-05: words, not codes): every code a report can carry has its label in English and
/// French, from the catalogue entries the volunteer's form shows, so no page falls back to a code.
@Suite struct ReviewLabelsTests {
    static let catalog = Result { try MessageCatalog(directory: TestPaths.packageRoot + "/Templates") }

    @Test(arguments: [Language.en, .fr]) func rev05EveryCodeHasItsLabel(_ language: Language) throws {
        let messages = try Self.catalog.get().messages(for: language)
        for select in SubmitForm.selects {
            // The form's own options: the same words on both sides.
            let form = SubmitForm().selectValues(messages)
            for code in select.codes {
                let label = ReviewLabels.code(select.name, code, messages)
                #expect(!label.isEmpty && label != "submit.codes.\(select.name).\(code)", "\(select.name) \(code)")
                #expect(messages.flat.values.contains(label), "\(select.name) \(code): \(label) is no catalogue entry")
                #expect(Self.options(form, select.name)[code] == label, "\(select.name) \(code)")
            }
        }
        for state in ReviewState.allCases {
            #expect(
                messages.flat["review.state.\(state.rawValue)"] == ReviewLabels.reviewState(state.rawValue, messages))
        }
        for state in ReportState.allCases {
            #expect(
                messages.flat["review.delivery.\(state.rawValue)"]
                    == ReviewLabels.deliveryState(state.rawValue, messages))
        }
        for origin in ReportOrigin.allCases {
            #expect(messages.flat["review.origin.\(origin.rawValue)"] == ReviewLabels.origin(origin.rawValue, messages))
        }
        for reason in RejectReason.allCases {
            #expect(messages.flat["review.reason.\(reason.rawValue)"] == ReviewLabels.reason(reason.rawValue, messages))
        }
    }

    @Test func rev05UnknownCodesShowAsTheyAreAndTimesInUTC() throws {
        let messages = try Self.catalog.get().messages(for: .fr)
        #expect(ReviewLabels.code("designation", "XYZ", messages) == "XYZ", "never a catalogue key")
        #expect(ReviewLabels.code("grade", nil, messages) == "")
        #expect(ReviewLabels.change("received", "approved", messages) == "Reçu → Approuvé")
        #expect(ReviewLabels.change("volunteer", "coordinator", messages) == "volunteer → coordinator")
        let row = ReviewRow(
            id: 1, localID: "l", reporter: "r@example.org", origin: "kiosk", submittedAt: 1_796_275_367,
            designation: "LB", condition: "bad", grade: "II*", delivery: "queued", review: "received", photoCount: 0)
        #expect(ReviewLabels.summary(row, messages) == "Bâtiment classé · Très mauvais · Grade II*")
        #expect(ReviewLabels.utcText(1_796_275_367) == "2026-12-03 05:22:47 UTC")
        #expect(ReviewLabels.iso(1_796_275_367) == "2026-12-03T05:22:47Z")
    }

    /// A sentence with a time in it (the roles page's first sign-in): the time apart, for `<time>`; a value
    /// that reads `{when}` stays text.
    @Test func sentenceKeepsItsTimeApart() {
        let sentence = ReviewLabels.sentence(
            "First sign-in {when} from {address}.", when: 1_796_275_367, ["address": "{when}"])
        #expect(sentence["before"] == .string("First sign-in "))
        #expect(sentence["after"] == .string(" from {when}."))
        #expect(sentence["at"]?["iso"] == .string("2026-12-03T05:22:47Z"))
        #expect(sentence["at"]?["text"] == .string("2026-12-03 05:22:47 UTC"))
        let plain = ReviewLabels.sentence("Held by {who}", when: nil, ["who": "a@example.org"])
        #expect(plain["before"] == .string("Held by a@example.org") && plain["at"] == .null)
    }

    /// The options of one of the form's selects, code to label.
    static func options(_ form: MustacheValue, _ name: String) -> [String: String] {
        guard case .array(let selects) = form,
            let select = selects.first(where: { $0["name"] == .string(name) }),
            case .array(let options)? = select["options"]
        else { return [:] }
        var labels: [String: String] = [:]
        for option in options {
            if case .string(let value)? = option["value"], case .string(let label)? = option["label"] {
                labels[value] = label
            }
        }
        return labels
    }
}
