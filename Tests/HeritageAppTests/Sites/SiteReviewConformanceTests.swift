import Foundation
import Testing

@testable import HeritageApp

/// `SiteReviewStore` through its protocol, once per backend: a report attached to a site, detached,
/// a site made from a report, each with its audit row; a site's standing from its approved reports;
/// the register's filters and keyset paging.
@Suite struct SiteReviewConformanceTests {
    /// A queued report at a point with a condition and priority of its own, submitted `after` seconds
    /// after the scene's time; its row id.
    static func report(
        _ scene: StoreScene, user: Int64, name: String = "St Mary's Church", condition: String = "poor",
        priority: String = "A", latitude: Double = 51.5, longitude: Double = -0.12, after: Double = 0
    ) throws -> Int64 {
        let (draft, _) = try scene.stores.drafts.openDraft(userID: user, now: scene.now + after, freshSince: 0)
        let fix = PhotoFix(latitude: latitude, longitude: longitude, accuracy: 10)
        _ = try scene.stores.drafts.addPhoto(StoreScene.photo(at: fix), to: draft, now: scene.now + after)
        var fields = StoreScene.fields
        fields.name = name
        fields.condition = condition
        fields.priorityCategory = priority
        #expect(
            try scene.stores.drafts.submit(
                draftLocalID: draft.localID, userID: user, fields: fields, token: UUID().uuidString,
                now: scene.now + after) == .queued)
        return try #require(try scene.stores.outbox.reportID(localID: draft.localID))
    }

    static func site(_ scene: StoreScene, _ name: String, reference: String? = nil, at: (Double, Double)) throws
        -> Int64
    {
        try scene.stores.sites.create(
            NewSite(
                reference: reference, name: name, designation: "LPW", grade: "II", latitude: at.0, longitude: at.1),
            now: scene.now
        ).id
    }

    static func approve(_ scene: StoreScene, _ id: Int64) throws {
        let decision = ReviewDecision(to: .approved, from: [.received, .needsInfo], action: "approve")
        #expect(try scene.stores.review.decide(decision, id: id, actor: "c@example.org", now: scene.now) == .done)
    }

    /// SITE-04: attach, detach and a site made from a report, each audited with the report; a site
    /// that does not exist is refused and changes nothing.
    @Test(arguments: StoreBackend.all) func site04AttachDetachCreateAudited(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let report = try Self.report(scene, user: user)
        let chapel = try Self.site(scene, "St Mary’s Church", reference: "1001", at: (51.5003, -0.12))
        let far = try Self.site(scene, "Castle", reference: "1002", at: (51.6, -0.12))
        let store = scene.stores.siteReview

        // The likely ones: near first, the far one outside the radius.
        let near = try store.sitesNear(latitude: 51.5, longitude: -0.12, metres: 1000, limit: 10)
        #expect(near.map(\.site.id) == [chapel])
        #expect(try store.registerSite(reference: "1002")?.id == far)

        #expect(
            try store.attach(reportID: report, siteID: 999_999, actor: "c@example.org", now: scene.now) == .notFound)
        #expect(try scene.stores.review.row(id: report)?.siteID == nil)
        #expect(try store.attach(reportID: report, siteID: chapel, actor: "c@example.org", now: scene.now) == .done)
        #expect(try scene.stores.review.row(id: report)?.siteID == chapel)
        #expect(
            try store.attach(reportID: report, siteID: chapel, actor: "c@example.org", now: scene.now)
                == .notApplicable(state: "site_same"))
        #expect(
            try store.attach(reportID: 999_999, siteID: chapel, actor: "c@example.org", now: scene.now) == .notFound)
        #expect(try store.detach(reportID: report, actor: "d@example.org", now: scene.now + 1) == .done)
        #expect(try scene.stores.review.row(id: report)?.siteID == nil)

        let (outcome, made) = try store.createSite(fromReport: report, actor: "c@example.org", now: scene.now + 2)
        #expect(outcome == .done)
        let madeID = try #require(made)
        let site = try #require(try store.registerSite(id: madeID))
        #expect(site.name == "St Mary's Church" && site.source == "report" && site.reference == nil)
        #expect(site.designation == "LPW" && site.grade == "II")
        #expect(abs((site.latitude ?? 0) - 51.5) < 1e-9)
        #expect(try scene.stores.review.row(id: report)?.siteID == made)

        let audit = try scene.stores.review.audit(AuditFilter(reportID: report), beforeID: nil, limit: 10)
        #expect(audit.map(\.action) == ["site_create", "site_detach", "site_attach"])
        #expect(audit[2].after == "site \(chapel)" && audit[2].detail == "St Mary’s Church")
        #expect(audit[1].before == "site \(chapel)" && audit[1].after == nil && audit[1].actor == "d@example.org")
        #expect(audit[0].after == "site \(made ?? 0)")
    }

    /// SITE-05: the current condition is the latest approved report's; worsened or improved against the
    /// approved one before; reports not approved (or in the trash) do not count for it.
    @Test(arguments: StoreBackend.all) func site05StandingFromApprovedReports(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let site = try Self.site(scene, "Chapel", reference: "7", at: (51.5, -0.12))
        let store = scene.stores.siteReview
        #expect(try store.standing(siteID: site) == SiteStanding())
        let first = try Self.report(scene, user: user, condition: "fair", priority: "C", after: 10)
        let second = try Self.report(scene, user: user, condition: "poor", priority: "B", after: 20)
        let third = try Self.report(scene, user: user, condition: "bad", priority: "A", after: 30)
        for id in [first, second, third] {
            #expect(try store.attach(reportID: id, siteID: site, actor: "c@example.org", now: scene.now) == .done)
        }
        var standing = try store.standing(siteID: site)
        #expect(standing.condition == nil && standing.reportCount == 3 && standing.lastReportAt == scene.now + 30)
        try Self.approve(scene, first)
        try Self.approve(scene, second)
        standing = try store.standing(siteID: site)
        #expect(standing.condition == "poor" && standing.priority == "B" && standing.previousCondition == "fair")
        #expect(standing.trend == .worsened && standing.approvedAt == scene.now + 20)
        // The third, not approved, changes nothing of the condition; once approved it is the current one.
        let later = try Self.report(scene, user: user, condition: "good", priority: "F", after: 40)
        _ = try store.attach(reportID: later, siteID: site, actor: "c@example.org", now: scene.now)
        try Self.approve(scene, later)
        standing = try store.standing(siteID: site)
        #expect(standing.condition == "good" && standing.previousCondition == "poor" && standing.trend == .improved)
        #expect(standing.reportCount == 4)
        // The timeline is the review's search filtered to the site.
        let timeline = try scene.stores.review.search(ReviewFilter(site: site, sort: .oldest), after: nil, limit: 10)
        #expect(timeline.map(\.id) == [first, second, third, later])
    }

    /// SITE-06: the register's filters (condition, priority, worsened since, not reported for, designation,
    /// text, reported only) and its keyset paging by name.
    @Test(arguments: StoreBackend.all) func site06RegisterFiltersAndPaging(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let store = scene.stores.siteReview
        let worse = try Self.site(scene, "Abbey", reference: "A-1", at: (51.5, -0.12))
        let better = try Self.site(scene, "Bridge", reference: "B-2", at: (51.51, -0.12))
        let quiet = try Self.site(scene, "Castle", reference: "C-3", at: (51.52, -0.12))
        for (site, conditions) in [(worse, ["good", "bad"]), (better, ["poor", "fair"])] {
            for (index, condition) in conditions.enumerated() {
                let after = Double(index * (site == worse ? 10 : 2))
                let id = try Self.report(scene, user: user, condition: condition, after: after)
                _ = try store.attach(reportID: id, siteID: site, actor: "c@example.org", now: scene.now)
                try Self.approve(scene, id)
            }
        }
        func ids(_ filter: SiteRegisterFilter) throws -> [Int64] {
            try store.register(filter, after: nil, limit: 10).map(\.site.id)
        }
        #expect(try ids(SiteRegisterFilter()) == [worse, better, quiet])
        #expect(try ids(SiteRegisterFilter(condition: "bad")) == [worse])
        #expect(try ids(SiteRegisterFilter(condition: "fair")) == [better])
        #expect(try ids(SiteRegisterFilter(priority: "A")) == [worse, better])
        #expect(try ids(SiteRegisterFilter(worsenedSince: scene.now)) == [worse])
        #expect(try ids(SiteRegisterFilter(worsenedSince: scene.now + 11)) == [])
        #expect(try ids(SiteRegisterFilter(notReportedSince: scene.now + 5)) == [better, quiet])
        #expect(try ids(SiteRegisterFilter(text: "bRiD")) == [better])
        #expect(try ids(SiteRegisterFilter(text: "c-3")) == [quiet])
        #expect(try ids(SiteRegisterFilter(text: "%")) == [])
        #expect(try ids(SiteRegisterFilter(designation: "SM")) == [])
        #expect(try ids(SiteRegisterFilter(reportedOnly: true)) == [worse, better])
        #expect(try store.registerCount(SiteRegisterFilter(), atMost: 2) == 2)
        #expect(try store.registerCount(SiteRegisterFilter(reportedOnly: true), atMost: 100) == 2)
        let row = try #require(try store.register(SiteRegisterFilter(condition: "bad"), after: nil, limit: 1).first)
        #expect(row.standing.trend == .worsened && row.standing.reportCount == 2)
        // Keyset paging by name: the page after Abbey.
        #expect(
            try store.register(SiteRegisterFilter(), after: SiteCursor(name: "Abbey", id: worse), limit: 10).map(
                \.site.id) == [better, quiet])
    }
}
