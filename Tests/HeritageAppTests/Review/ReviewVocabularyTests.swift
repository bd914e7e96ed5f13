import Foundation
import Testing

@testable import HeritageApp

/// The review's and the mail's typed vocabularies: the words stored are the words of before (no
/// migration), each has its label in both languages, and the rule "what a decision does to delivery"
/// (REV-11) is the table docs/REVIEW.md shows, its withdrawal delay derived from the undo window.
@Suite struct ReviewVocabularyTests {
    static let catalog = Result { try MessageCatalog(directory: TestPaths.packageRoot + "/Templates") }

    @Test func rev07ActionsAreTheWordsTheFormsPostAndTheAuditLogStores() {
        #expect(
            ReviewAction.allCases.map(\.rawValue) == [
                "approve", "reject", "needs_info", "duplicate", "reopen", "claim", "release_claim", "retry", "hold",
                "release", "discard", "restore", "undo",
            ])
        #expect(ReviewAction.decisions == [.approve, .reject, .needsInfo, .duplicate, .reopen])
        #expect(ReviewSQL.decisionActions == ["approve", "reject", "needs_info", "duplicate", "reopen"])
        #expect(ReviewAction.triageDecisions == [.approve, .reject, .needsInfo, .duplicate])
        #expect(
            ReviewAction.bulk.map(\.rawValue) == [
                "approve", "reject", "needs_info", "reopen", "retry", "hold", "release", "discard", "restore",
            ])
        // A decision carries its audit word and its states; the others are no decision.
        let reject = ReviewAction.reject.decision(reason: "unsafe", message: "no")
        #expect(
            reject
                == ReviewDecision(
                    to: .rejected, from: [.received, .needsInfo], reason: "unsafe", message: "no", action: "reject"))
        #expect(ReviewAction.reject.decision(reason: nil, message: nil) == nil)
        #expect(ReviewAction.duplicate.decision(reason: nil, message: nil) == nil)
        #expect(ReviewAction.duplicate.decision(reason: nil, message: nil, duplicateOf: 3)?.reason == "duplicate")
        for action in ReviewAction.allCases where action.review == nil {
            #expect(action.decision(reason: "unsafe", message: "m", duplicateOf: 1) == nil, "\(action)")
        }
        #expect(ReviewAction.allCases.filter { $0.delivery != nil } == [.retry, .hold, .release])
        #expect(ReviewAction.discardable.map(\.rawValue) == ["queued", "held", "needs_attention"])
    }

    @Test(arguments: [Language.en, .fr]) func rev08EveryAuditWordHasItsLabel(_ language: Language) throws {
        let messages = try Self.catalog.get().messages(for: language)
        for action in ReviewAuditScreen.actions {
            #expect(messages.flat[ReviewAction.labelKey(action)] != nil, "\(language): review.action.\(action)")
        }
        #expect(Set(ReviewAuditScreen.actions).count == ReviewAuditScreen.actions.count)
        for kind in MailKind.allCases {
            #expect(messages.flat[kind.notificationKey] != nil, "\(language): \(kind.notificationKey)")
        }
    }

    @Test func mailKindsAreTheOutboxWordsWithTheirTopics() {
        #expect(
            MailKind.allCases.map(\.rawValue) == [
                "needs_info", "approved", "rejected", "report_arrived", "digest", "admin_note",
            ])
        #expect(MailKind.allCases.map(\.topic) == [.questions, .decisions, .decisions, .review, .review, .adminNote])
        #expect(MailTopic(kind: "digest") == .review)
        #expect(MailTopic(kind: "no_such_kind") == nil)
        #expect(ReviewState.allCases.compactMap(MailKind.init(decidedState:)) == [.approved, .needsInfo, .rejected])
        #expect(MailKind.allCases.filter(\.isForReporter) == [.needsInfo, .approved, .rejected])
    }

    /// The withdrawal begins only after the last undo a coordinator can make: derived, not restated.
    @Test func rev11WithdrawalWaitsPastTheUndoWindow() throws {
        #expect(ReviewDeliveryRule.withdrawalDelaySeconds > ReviewAction.undoWindowSeconds)
        #expect(
            ReviewDeliveryRule.withdrawalDelaySeconds
                == ReviewAction.undoWindowSeconds + ReviewDeliveryRule.withdrawalMarginSeconds)
        let doc = try Self.reviewDoc()
        #expect(doc.contains("no earlier than \(Int(ReviewDeliveryRule.withdrawalDelaySeconds)) seconds"))
        #expect(doc.contains("*Undo* (U) for \(Int(ReviewAction.undoWindowSeconds)) seconds"))
        #expect(
            ReviewDeliveryRule.withdrawable.map(\.rawValue) == [
                "queued", "creating", "created", "uploading", "stored", "retry_wait", "needs_attention",
                "waiting_signin", "held",
            ])
    }

    /// REV-11's table in docs/REVIEW.md, row by row: the delivery states named in its first column, the
    /// platform's copy in its second, what the worker does in its third, are `ReviewDeliveryRule.table`.
    @Test func rev11TheRuleIsTheTableOfTheDocs() throws {
        let rows = try Self.deliveryTable()
        try #require(rows.count == ReviewDeliveryRule.table.count, "docs/REVIEW.md has \(rows.count) rows")
        for (cells, rule) in zip(rows, ReviewDeliveryRule.table) {
            let states = Self.backticked(cells[0]).compactMap(ReportState.init(rawValue:))
            #expect(states == rule.states, "\(cells[0])")
            let platform = cells[1].split(separator: " ").first.map { String($0) } ?? ""
            #expect(platform == rule.platform.rawValue, "\(cells[1])")
            let stop: ReviewDeliveryRule.Stop =
                cells[2].hasPrefix("`withdrawing`")
                ? .withdrawal : cells[2].contains("deletion goes on") ? .deletionGoesOn : .leftAlone
            #expect(stop == rule.stop, "\(cells[2])")
        }
    }

    static func reviewDoc() throws -> String {
        try String(contentsOfFile: TestPaths.packageRoot + "/docs/REVIEW.md", encoding: .utf8)
    }

    /// The body rows of the first table under "The decision governs delivery", each as its cells.
    static func deliveryTable() throws -> [[String]] {
        let doc = try reviewDoc()
        let section = try #require(doc.range(of: "### The decision governs delivery"))
        var rows: [[String]] = []
        for line in doc[section.upperBound...].split(separator: "\n").drop(while: { !$0.hasPrefix("|") }) {
            guard line.hasPrefix("|") else { break }
            rows.append(
                line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
                    $0.trimmingCharacters(in: .whitespaces)
                })
        }
        return Array(rows.dropFirst(2))  // the head and its rule
    }

    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap {
            $0.offset % 2 == 1 ? String($0.element) : nil
        }
    }
}
