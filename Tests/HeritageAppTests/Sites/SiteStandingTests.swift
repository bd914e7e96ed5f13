import Foundation
import Testing

@testable import HeritageApp

/// The standing kept on each site's row (migration 27's columns and triggers) against the standing worked
/// out from the reports as before (`SiteStandingOracle`), on both engines: after every step of a random
/// sequence of what moves it (submissions on a site, approve, reject, needs info, duplicate, reopen, undo,
/// trash and restore, attach, detach, a site made from a report, a volunteer's withdrawal), and the
/// register's filters answering the sites the filter means, page by page.
@Suite struct SiteStandingTests {
    static let actor = "c@example.org"
    static let conditions = ["bad", "poor", "fair", "good"]
    static let priorities = ["A", "B", "C", "D", "E", "F"]
    /// The random sequence's operations, numbered as in its `switch`, each as often as it appears here.
    static let operations = [0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 12]

    /// The register's sites, each with a name, a reference and a designation the text and designation
    /// filters tell apart.
    static func sites(_ raw: RawStoreScene) throws -> [Int64] {
        let named: [(String, String?, String)] = [
            ("Abbey Mill", "AB-1", "SM"), ("Bridge Chapel", "br-22", "LB"), ("Castle Mill Farm", nil, "LB"),
            ("Dovecote", "D%3", "SM"), ("St Mary's Church", "SM_4", "LPW"),
        ]
        return try named.enumerated().map { index, site in
            try raw.stores.sites.create(
                NewSite(
                    reference: site.1, name: site.0, designation: site.2, grade: "II",
                    latitude: 51.5 + Double(index) / 100, longitude: -0.12),
                now: raw.now
            ).id
        }
    }

    /// A volunteer's report on `site` (or none), submitted `after` seconds after the scene's time.
    static func submit(
        _ raw: RawStoreScene, user: Int64, site: Int64?, after: Double, random: inout SeededRandom
    ) throws -> (id: Int64, localID: String) {
        let now = raw.now + after
        let (draft, _) = try raw.stores.drafts.openDraft(userID: user, now: now, freshSince: 0)
        let fix = PhotoFix(latitude: 51.5, longitude: -0.12, accuracy: 10)
        _ = try raw.stores.drafts.addPhoto(StoreScene.photo(at: fix), to: draft, now: now)
        var fields = StoreScene.fields
        fields.name = "Report \(Int(after))"
        fields.condition = conditions.randomElement(using: &random) ?? "poor"
        fields.priorityCategory = priorities.randomElement(using: &random) ?? "A"
        fields.siteID = site
        let result = try raw.stores.drafts.submit(
            draftLocalID: draft.localID, userID: user, fields: fields, token: UUID().uuidString, now: now)
        #expect(result == .queued)
        return (try #require(try raw.stores.outbox.reportID(localID: draft.localID)), draft.localID)
    }

    static func expectAgreement(_ raw: RawStoreScene, sites: [Int64], step: String) throws {
        for site in sites {
            let recomputed = try SiteStandingOracle.recomputed(raw, site: site)
            let (stored, worsenedAt) = try SiteStandingOracle.stored(raw, site: site)
            #expect(stored == recomputed, "site \(site) after \(step)")
            #expect(worsenedAt == (recomputed.trend == .worsened ? recomputed.approvedAt : nil), "\(site) \(step)")
            #expect(try raw.stores.siteReview.standing(siteID: site) == recomputed, "site \(site) after \(step)")
        }
    }

    /// SITE-05, SITE-07: after each of 120 random steps, every site's stored standing is the one worked out
    /// from its reports; both engines, the same seeded sequence.
    @Test(arguments: StoreBackend.all) func site05StoredStandingEqualsRecomputedAfterRandomDecisions(
        _ backend: StoreBackend
    ) throws {
        let raw = try RawStoreScene(backend)
        let user = try raw.scene.user("v@example.org")
        var sites = try Self.sites(raw)
        var random = SeededRandom(state: 37)
        var reports: [(id: Int64, localID: String)] = []
        var decided: [Int64: (before: ReviewState, after: ReviewState)] = [:]
        var seenWorsened = false
        for step in 0..<120 {
            let report = reports.randomElement(using: &random)
            let site = sites.randomElement(using: &random)
            let review = raw.stores.review
            // Submissions and approvals more often than the rest, so that sites keep reports to decide on.
            let operation = reports.count < 6 ? 0 : Self.operations.randomElement(using: &random) ?? 0
            switch (operation, report) {
            case (0, _):
                // Two steps share a submission time now and then: the tie goes to the higher id.
                let after = Double(step / 2 * 10)
                reports.append(
                    try Self.submit(
                        raw, user: user, site: Bool.random(using: &random) ? site : nil, after: after,
                        random: &random))
            case (1...4, let report?):
                let action = [ReviewAction.approve, .approve, .reject, .needsInfo][operation - 1]
                let decision = try #require(action.decision(reason: RejectReason.outOfScope.rawValue, message: "?"))
                let before = try review.row(id: report.id)?.review
                if try review.decide(decision, id: report.id, actor: Self.actor, now: raw.now) == .done,
                    let before, let state = ReviewState(rawValue: before)
                {
                    decided[report.id] = (state, decision.to)
                }
            case (5, let report?):
                let other = try #require(reports.first { $0.id != report.id })
                let decision = try #require(
                    ReviewAction.duplicate.decision(reason: nil, message: nil, duplicateOf: other.id))
                _ = try review.decide(decision, id: report.id, actor: Self.actor, now: raw.now)
            case (6, let report?):
                let decision = try #require(ReviewAction.reopen.decision(reason: nil, message: nil))
                _ = try review.decide(decision, id: report.id, actor: Self.actor, now: raw.now)
            case (7, let report?):
                // Undo, as `ReviewActions.undo` asks the store: back to the state before, from the one after.
                if let last = decided.removeValue(forKey: report.id) {
                    _ = try review.decide(
                        ReviewDecision(to: last.before, from: [last.after], action: ReviewAction.undo.rawValue),
                        id: report.id, actor: Self.actor, now: raw.now)
                }
            case (8, let report?):
                _ = try review.discard(id: report.id, actor: Self.actor, now: raw.now)
            case (9, let report?):
                _ = try review.restore(id: report.id, actor: Self.actor, now: raw.now, since: 0)
            case (10, let report?):
                if let site {
                    _ = try raw.stores.siteReview.attach(
                        reportID: report.id, siteID: site, actor: Self.actor, now: raw.now)
                }
            case (11, let report?):
                if Int.random(in: 0..<4, using: &random) > 0 {
                    _ = try raw.stores.siteReview.detach(reportID: report.id, actor: Self.actor, now: raw.now)
                } else {
                    _ = try raw.stores.reports.planDeletion(localID: report.localID, userID: user, now: raw.now)
                }
            case (12, let report?):
                if case (.done, let made?) = try raw.stores.siteReview.createSite(
                    fromReport: report.id, actor: Self.actor, now: raw.now)
                {
                    sites.append(made)
                }
            default: break
            }
            try Self.expectAgreement(raw, sites: sites, step: "step \(step), operation \(operation)")
            for site in sites where try SiteStandingOracle.recomputed(raw, site: site).trend == .worsened {
                seenWorsened = true
            }
        }
        // The sequence reached what the filters ask about, not only empty standings.
        #expect(seenWorsened)
        #expect(try sites.contains { try SiteStandingOracle.recomputed(raw, site: $0).condition != nil })
        try Self.expectFiltersMeanWhatTheySay(raw)
    }

    /// SITE-06: each filter (and some together) answers the sites it means, in the register's order, page
    /// by page (two sites a page, by keyset), and the count agrees.
    static func expectFiltersMeanWhatTheySay(_ raw: RawStoreScene) throws {
        let store = raw.stores.siteReview
        let all = try store.register(SiteRegisterFilter(), after: nil, limit: 1_000)
        let standings = try all.map { try SiteStandingOracle.recomputed(raw, site: $0.site.id) }
        let middle = raw.now + 300
        var filters: [SiteRegisterFilter] = [SiteRegisterFilter(), SiteRegisterFilter(reportedOnly: true)]
        filters += conditions.map { SiteRegisterFilter(condition: $0) }
        filters += priorities.map { SiteRegisterFilter(priority: $0) }
        filters += [raw.now, middle, raw.now + 10_000].map { SiteRegisterFilter(worsenedSince: $0) }
        filters += [raw.now, middle, raw.now + 10_000].map { SiteRegisterFilter(notReportedSince: $0) }
        filters += ["SM", "LB", "RGP"].map { SiteRegisterFilter(designation: $0) }
        filters += ["mill", "MILL", "ll", "c", "br-2", "d%3", "%", "sm_", "_", "St M", "zzz", "Report 1"].map {
            SiteRegisterFilter(text: $0)
        }
        filters += [
            SiteRegisterFilter(condition: "poor", designation: "LB"), SiteRegisterFilter(priority: "A", text: "mill"),
            SiteRegisterFilter(worsenedSince: raw.now, reportedOnly: true),
            SiteRegisterFilter(notReportedSince: middle, text: "re"),
        ]
        for filter in filters {
            let expected = zip(all, standings).filter { SiteStandingOracle.matches(filter, $0.0.site, $0.1) }.map(
                \.0.site.id)
            var found: [Int64] = []
            var cursor: SiteCursor?
            while true {
                let page = try store.register(filter, after: cursor, limit: 2)
                found += page.map(\.site.id)
                guard page.count == 2, let last = page.last else { break }
                cursor = SiteCursor(name: last.site.name, id: last.site.id)
            }
            #expect(found == expected, "\(filter)")
            #expect(try store.registerCount(filter, atMost: 1_000) == expected.count, "\(filter)")
        }
    }
}
