import Foundation
import Testing

@testable import HeritageApp

/// `ReviewStore` through its protocol, once per backend: roles, the review state apart from
/// delivery and the worker's gate, compare-and-set decisions, claims, the search's filters and keyset
/// paging, and the append-only audit log.
@Suite struct ReviewStoreConformanceTests {
    /// REV-01: grants by e-mail (before a first sign-in too), revoke, each audited.
    @Test(arguments: StoreBackend.all) func rev01RolesGrantRevokeAudited(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        // Signed in here first: the grant waits for an administrator's confirmation of that account (REV-10).
        _ = try scene.user("a@example.org")
        #expect(try review.storedRole(email: "a@example.org") == nil)
        #expect(try review.grant(email: "a@example.org", role: .coordinator, actor: "cli:op", now: scene.now) == nil)
        #expect(try review.storedRole(email: "a@example.org") == nil, "pending: a grant never binds by itself")
        #expect(
            try review.confirm(
                email: "a@example.org", accountID: "account-a@example.org", actor: "cli:op", now: scene.now)
                == .confirmed(.coordinator))
        #expect(try review.storedRole(email: "A@Example.org") == .coordinator, "lookups compare without case")
        #expect(try review.grant(email: "a@example.org", role: .admin, actor: "cli:op", now: scene.now) == .coordinator)
        #expect(try review.grants().map(\.role) == [.admin])
        #expect(try review.revoke(email: "a@example.org", actor: "b@example.org", now: scene.now) == .admin)
        #expect(try review.revoke(email: "a@example.org", actor: "b@example.org", now: scene.now) == nil)
        #expect(try review.storedRole(email: "a@example.org") == nil)
        let audit = try review.audit(AuditFilter(), beforeID: nil, limit: 10)
        #expect(audit.map(\.action) == ["role_revoke", "role_grant", "role_confirm", "role_grant"])
        #expect(audit.first?.subject == "a@example.org" && audit.first?.before == "admin")
    }

    /// REV-02, REV-03: the worker's `dueReports` leaves out a queued report the policy holds back, takes
    /// it once approved, and never takes a rejected one whatever the policy.
    @Test(arguments: StoreBackend.all) func rev03PolicyGatesTheWorker(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let (first, _) = try scene.queuedReport(userID: user, name: "First")
        let (second, _) = try scene.queuedReport(userID: user, name: "Second")
        let review = scene.stores.review
        let outbox = scene.stores.outbox
        func due() throws -> Set<Int64> { Set(try outbox.dueReports(now: scene.now + 1, excluding: [], limit: 10)) }
        // Default (kiosk): a volunteer's report goes at once.
        #expect(try due() == [first, second])
        try review.setPolicy(.all)
        #expect(try due() == [])
        let approve = ReviewDecision(to: .approved, from: [.received, .needsInfo], action: "approve")
        #expect(try review.decide(approve, id: first, actor: "c@example.org", now: scene.now) == .done)
        #expect(try due() == [first])
        let reject = ReviewDecision(
            to: .rejected, from: [.received, .needsInfo], reason: "test", message: nil, action: "reject")
        #expect(try review.decide(reject, id: second, actor: "c@example.org", now: scene.now) == .done)
        try review.setPolicy(.none)
        #expect(try due() == [first], "a rejected report is never sent, even under the policy none")
    }

    /// REV-07: a decision is a compare-and-set; the second is told who decided, what and when. A claim
    /// by someone else stops a decision until it lapses.
    @Test(arguments: StoreBackend.all) func rev07DecisionsCompareAndSetAndClaims(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let (id, _) = try scene.queuedReport(userID: user)
        let review = scene.stores.review
        #expect(try review.claim(id: id, actor: "one@example.org", now: scene.now, until: scene.now + 1800) == .done)
        let approve = ReviewDecision(to: .approved, from: [.received, .needsInfo], action: "approve")
        #expect(
            try review.decide(approve, id: id, actor: "two@example.org", now: scene.now + 5)
                == .conflict(actor: "one@example.org", action: "claim", at: scene.now))
        // The claim lapses after its time: the other coordinator may decide.
        #expect(try review.decide(approve, id: id, actor: "two@example.org", now: scene.now + 1801) == .done)
        #expect(
            try review.decide(approve, id: id, actor: "one@example.org", now: scene.now + 1802)
                == .conflict(actor: "two@example.org", action: "approve", at: scene.now + 1801))
        #expect(try review.decide(approve, id: 999_999, actor: "one@example.org", now: scene.now) == .notFound)
        let row = try #require(try review.row(id: id))
        #expect(row.review == "approved" && row.reviewedBy == "two@example.org" && row.claimedBy == nil)
        // In bulk: each its own compare-and-set, in order.
        let (other, _) = try scene.queuedReport(userID: user)
        #expect(
            try review.decideAll(
                approve, ids: [other, other, 999_999], actor: "one@example.org", now: scene.now + 1803)
                == [.done, .conflict(actor: "one@example.org", action: "approve", at: scene.now + 1803), .notFound])
        let decisions = try review.audit(AuditFilter(action: "approve", reportID: id), beforeID: nil, limit: 10)
        #expect(decisions.count == 1, "one decision in the audit log")
    }

    /// REV-04: needs info, the reporter's reply (fields corrected while queued, each change audited),
    /// back to received.
    @Test(arguments: StoreBackend.all) func rev04NeedsInfoAndReply(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let other = try scene.user("w@example.org", token: 2)
        let (id, localID) = try scene.queuedReport(userID: user, name: "Chapl")
        let review = scene.stores.review
        var fields = StoreScene.fields
        fields.name = "Chapel"
        fields.condition = "fair"
        #expect(try !review.reply(localID: localID, userID: user, fields: fields, note: "", now: scene.now))
        #expect(try review.replyRoom(localID: localID, userID: user) == nil, "not asked: nothing to change")
        let ask = ReviewDecision(to: .needsInfo, from: [.received], message: "Which chapel?", action: "needs_info")
        #expect(try review.decide(ask, id: id, actor: "c@example.org", now: scene.now) == .done)
        #expect(try review.reviewStates(userID: user)[localID]?.message == "Which chapel?")
        #expect(try review.replyRoom(localID: localID, userID: user) == ReplyRoom(id: id, photoCount: 2))
        #expect(try review.replyRoom(localID: localID, userID: other) == nil)
        #expect(try !review.reply(localID: localID, userID: other, fields: fields, note: "x", now: scene.now))
        #expect(try review.reply(localID: localID, userID: user, fields: fields, note: "St Anne", now: scene.now))
        let row = try #require(try review.row(id: id))
        #expect(row.review == "received" && row.repliedAt != nil && row.name == "Chapel" && row.condition == "fair")
        #expect(try review.counts(now: scene.now).reporterReplied == 1)
        let replied = try #require(
            try review.audit(AuditFilter(action: "reporter_reply"), beforeID: nil, limit: 1).first)
        #expect(replied.detail == "St Anne\nname: Chapl → Chapel\ncondition: poor → fair")
        #expect(try review.replyRoom(localID: localID, userID: user) == nil, "answered: closed again")
    }

    /// REV-04, REV-03: photos added to the answer while the report waits, up to the limit of 20, each
    /// audited, pending for the worker; none once the platform may have something of the report.
    @Test(arguments: StoreBackend.all) func rev04ReplyPhotosWhileTheReportWaits(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let (id, localID) = try scene.queuedReport(userID: user, photos: 18)
        let review = scene.stores.review
        #expect(try review.addReplyPhoto(StoreScene.photo(), localID: localID, userID: user, now: scene.now) == .gone)
        try review.setPolicy(.all)
        let ask = ReviewDecision(to: .needsInfo, from: [.received], message: "A closer photo?", action: "needs_info")
        #expect(try review.decide(ask, id: id, actor: "c@example.org", now: scene.now) == .done)
        let first = StoreScene.photo()
        #expect(try review.addReplyPhoto(first, localID: localID, userID: user, now: scene.now) == .added(position: 18))
        #expect(
            try review.addReplyPhoto(StoreScene.photo(), localID: localID, userID: user, now: scene.now)
                == .added(position: 19))
        #expect(try review.addReplyPhoto(StoreScene.photo(), localID: localID, userID: user, now: scene.now) == .full)
        #expect(try review.replyRoom(localID: localID, userID: user)?.photoCount == 20)
        let photos = try scene.stores.outbox.photos(reportID: id)
        #expect(photos.count == 20 && photos.allSatisfy { $0.state == .pending })
        #expect(
            try review.audit(AuditFilter(action: "reporter_photo"), beforeID: nil, limit: 5).map(\.after)
                .last == first.localID)
        // Waiting for review, the worker leaves it alone; once the create was tried, no more photos.
        #expect(try scene.stores.outbox.dueReports(now: scene.now + 1, excluding: [], limit: 10) == [])
        try review.setPolicy(.none)
        #expect(try scene.stores.outbox.beginCreate(id))
        #expect(try review.replyRoom(localID: localID, userID: user) == nil)
        #expect(try review.addReplyPhoto(StoreScene.photo(), localID: localID, userID: user, now: scene.now) == .gone)
    }

    /// REV-05: the text filter as migration 11 answers it (SQLite's trigram index, PostgreSQL's LIKE):
    /// any case, inside a word, quotes literal, short texts too, the local id exactly; a name corrected
    /// later is found under its new name only (the index follows the row).
    @Test(arguments: StoreBackend.all) func rev05TextFilterFollowsTheRows(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let (mill, millLocal) = try scene.queuedReport(userID: user, photos: 1, name: "Watermill at Nether Alderley")
        let (quoted, _) = try scene.queuedReport(userID: user, photos: 1, name: "The \"Old\" Forge")
        let review = scene.stores.review
        func found(_ text: String) throws -> [Int64] {
            var filter = ReviewFilter()
            filter.text = text
            return try review.search(filter, after: nil, limit: 10).map(\.id)
        }
        #expect(try found("TERMILL") == [mill])
        #expect(try found("\"old\" f") == [quoted])
        #expect(try found("ld") == [quoted, mill])
        #expect(try found(millLocal) == [mill])
        #expect(try found("alderley mill") == [])
        try review.setPolicy(.all)
        let ask = ReviewDecision(to: .needsInfo, from: [.received], message: "Which mill?", action: "needs_info")
        #expect(try review.decide(ask, id: mill, actor: "c@example.org", now: scene.now) == .done)
        var fields = StoreScene.fields
        fields.name = "Tide mill at Woodbridge"
        #expect(try review.reply(localID: millLocal, userID: user, fields: fields, note: "", now: scene.now))
        #expect(try found("woodbridge") == [mill])
        #expect(try found("alderley") == [])
    }

    /// REV-05: every filter, and keyset pages that together give each matching row once.
    @Test(arguments: StoreBackend.all) func rev05SearchFiltersAndKeysetPaging(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let alice = try scene.user("alice@example.org")
        let bob = try scene.user("bob@example.org", token: 2)
        var ids: [Int64] = []
        for index in 0..<7 { ids.append(try scene.queuedReport(userID: alice, photos: 1, name: "Mill \(index)").id) }
        let bobs = try scene.queuedReport(userID: bob, photos: 1, name: "Abbey 100%").id
        let review = scene.stores.review
        #expect(try review.count(ReviewFilter(), atMost: nil) == 8)
        #expect(try review.count(ReviewFilter(), atMost: 5) == 5, "counted up to the bound")
        var filter = ReviewFilter()
        filter.reporter = "BOB"
        #expect(try review.search(filter, after: nil, limit: 10).map(\.id) == [bobs])
        filter = ReviewFilter()
        filter.text = "100%"
        #expect(try review.search(filter, after: nil, limit: 10).map(\.id) == [bobs], "LIKE wildcards are literal")
        filter = ReviewFilter()
        filter.text = "zzz"
        #expect(try review.count(filter, atMost: nil) == 0)
        _ = try review.decide(
            ReviewDecision(to: .approved, from: [.received], action: "approve"), id: ids[2], actor: "c", now: scene.now)
        filter = ReviewFilter()
        filter.review = .approved
        #expect(try review.search(filter, after: nil, limit: 10).map(\.id) == [ids[2]])
        filter = ReviewFilter()
        filter.origin = .kiosk
        #expect(try review.count(filter, atMost: nil) == 0)
        filter = ReviewFilter()
        filter.delivery = .queued
        filter.from = scene.now - 10
        filter.to = scene.now + 10
        #expect(try review.count(filter, atMost: nil) == 8)
        filter.to = scene.now - 5
        #expect(try review.count(filter, atMost: nil) == 0)
        filter = ReviewFilter()
        filter.bounds = (51.4, -0.2, 51.6, 0)
        #expect(try review.count(filter, atMost: nil) == 8)
        filter.bounds = (10, 10, 11, 11)
        #expect(try review.count(filter, atMost: nil) == 0)
        for sort in ReviewFilter.Sort.allCases {
            var paged = ReviewFilter()
            paged.sort = sort
            var seen: [Int64] = []
            var cursor: ReviewCursor?
            while true {
                let page = try review.search(paged, after: cursor, limit: 3)
                seen += page.map(\.id)
                guard page.count == 3, let last = page.last else { break }
                cursor = ReviewCursor(key: last.cursorKey(sort), id: last.id)
            }
            #expect(seen.count == 8 && Set(seen).count == 8, "\(sort): each row once")
        }
    }

    /// REV-06: the reports within 250 m, nearest first, itself left out.
    @Test(arguments: StoreBackend.all) func rev06Nearby(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        // Photos at 51.5 and 51.501 (111 m apart): the report takes the best-accuracy fix.
        let (one, _) = try scene.queuedReport(userID: user, photos: 2)
        let (two, _) = try scene.queuedReport(userID: user, photos: 1)
        #expect(try scene.stores.review.nearby(id: one, metres: 250, limit: 10).map(\.id) == [two])
        #expect(try scene.stores.review.nearby(id: one, metres: 50, limit: 10).isEmpty)
    }

    /// REV-08: rows are added, never changed or removed (the backend refuses it).
    @Test(arguments: StoreBackend.all) func rev08AuditAppendOnly(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        for index in 0..<5 {
            try review.appendAudit(AuditEntry(at: scene.now, actor: "a\(index)", action: "export_csv"))
        }
        let newest = try review.audit(AuditFilter(), beforeID: nil, limit: 2)
        #expect(newest.map(\.actor) == ["a4", "a3"])
        #expect(try review.audit(AuditFilter(), beforeID: newest[1].id, limit: 10).map(\.actor) == ["a2", "a1", "a0"])
        #expect(try review.audit(AuditFilter(actor: "A2"), beforeID: nil, limit: 10).count == 1)
    }

    /// REV-07: discard to the trash (never sent, out of the dashboard's view), restore, and the purge of
    /// what has been there long enough (cancelled, its photos named for removal).
    @Test(arguments: StoreBackend.all) func rev07TrashDiscardRestorePurge(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let (id, _) = try scene.queuedReport(userID: user, photos: 2)
        let review = scene.stores.review
        let outbox = scene.stores.outbox
        try review.setPolicy(.none)
        func due() throws -> [Int64] { try outbox.dueReports(now: scene.now + 1, excluding: [], limit: 10) }
        #expect(try due() == [id])
        #expect(try review.discard(id: id, actor: "c@example.org", now: scene.now) == .done)
        #expect(try due() == [], "a report in the trash is never sent")
        #expect(try review.count(ReviewFilter(), atMost: nil) == 0)
        var trash = ReviewFilter()
        trash.trash = true
        #expect(try review.search(trash, after: nil, limit: 10).map(\.id) == [id])
        #expect(
            try review.discard(id: id, actor: "d@example.org", now: scene.now + 1)
                == .conflict(actor: "c@example.org", action: "discard", at: scene.now))
        #expect(try review.restore(id: id, actor: "c@example.org", now: scene.now + 2, since: scene.now - 10) == .done)
        #expect(try due() == [id])
        #expect(try review.discard(id: id, actor: "c@example.org", now: scene.now + 3) == .done)
        #expect(try review.purgeTrash(before: scene.now, now: scene.now + 4).isEmpty, "not there long enough")
        #expect(try review.purgeTrash(before: scene.now + 3, now: scene.now + 4).count == 2)
        #expect(try outbox.report(id: id)?.state == .cancelled)
        #expect(try review.restore(id: id, actor: "c@example.org", now: scene.now + 5, since: 0) == .notFound)
    }
}
