import FoundationEssentials
import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// What the creation and submission screens are told by the configuration.
struct DraftOptions: Sendable {
    var mapTileURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    var maxFileBytes = 30 * 1024 * 1024
    var retentionSeconds = 604_800
    /// The temporary folder's cap and the free-space floor for uploads; nil: not checked.
    var uploadRoom: UploadRoom?
    /// Per-user quotas: photos added in 24 hours, and bytes of photos not yet delivered; 0 = none.
    var photosPerDay = 0
    var undeliveredBytesPerUser = 0
}

/// The drafts' store, files and options, shared by the creation, submission and photo routes.
struct Drafts: Sendable {
    let store: any DraftStore
    let files: PhotoFiles
    let options: DraftOptions
    let log: Log
    /// Where every photo of the process is decoded, hashed, thumbnailed and flushed (the creation page's,
    /// the kiosks', the needs-info answers'): two at a time, the rest waiting their turn, on threads
    /// below the requests' CPU priority, so that decoding takes what the requests leave of the CPU and
    /// a page or `/healthz` never waits behind it (docs/BENCHMARKS.md).
    let photoWork: BlockingWork

    init(web: Web, options: DraftOptions) {
        store = web.stores.drafts
        files = PhotoFiles(directory: web.photosDirectory)
        self.options = options
        log = web.log
        photoWork = BlockingWork(
            label: "har-photos", limit: Self.photosAtOnce, threads: .background(nice: Self.photoNice))
    }

    /// Photos decoded at once: one per core of this 2-core target, each below the requests' priority.
    static let photosAtOnce = 2
    /// How far below the requests' CPU priority photos are decoded (nice steps: at 10, a decoding thread
    /// gets about a tenth of a core that a request also wants, and all of an idle one).
    static let photoNice: Int32 = 10

    /// How long a swept draft is remembered: a user coming back to it within this time is told that it
    /// expired (and why its photos are gone) instead of finding an empty page.
    static let expiryMemorySeconds: Double = 30 * 86_400

    /// Drafts untouched since this moment are past their retention.
    func retentionCutoff(_ now: Double) -> Double { now - Double(options.retentionSeconds) }

    /// Deletes drafts abandoned for longer than the retention, rows first, then their files (a crash in
    /// between leaves files no row names, never a row whose file is gone). Each is remembered in
    /// `expired_drafts` for `expiryMemorySeconds`.
    func sweep(now: Double) {
        do {
            let photos = try store.sweepDrafts(
                untouchedSince: retentionCutoff(now), now: now, forgetBefore: now - Self.expiryMemorySeconds)
            for id in photos { files.remove(id) }
            if !photos.isEmpty { log.info("removed \(photos.count) photo(s) of abandoned drafts") }
        } catch {
            log.info("draft sweep failed: \(error)")
        }
    }

    /// What a server does once at start: makes the photos folder, and sweeps the drafts abandoned while
    /// it was down.
    func startUp(now: Double) {
        do { try files.prepare() } catch { log.info("photos folder: \(error)") }
        sweep(now: now)
    }

    /// The draft of the creation and submission pages: the user's open one, or a new one. A new draft is
    /// the moment to forget abandoned ones (and start-up, see `startUp`); the user's own, when past
    /// its retention, is one of them.
    func open(userID: Int64, now: Double) throws -> (draft: Draft, isNew: Bool) {
        let (draft, isNew) = try store.openDraft(userID: userID, now: now, freshSince: retentionCutoff(now))
        if isNew { sweep(now: now) }
        return (draft, isNew)
    }

    /// The user's draft of that id while it is open; nil otherwise. One past its retention that the sweep
    /// has not reached yet is swept now: a tab left open does not bring it back, and the answer is the
    /// same as after the sweep.
    func current(localID: String, userID: Int64, now: Double) throws -> Draft? {
        guard let draft = try store.draft(localID: localID, userID: userID) else { return nil }
        guard draft.updatedAt < retentionCutoff(now) else { return draft }
        sweep(now: now)
        return try store.draft(localID: localID, userID: userID)
    }

    /// What happened to an expired draft, in the user's words: how long it lay unused, and that its
    /// photos went with it.
    func expiryMessage(_ expired: ExpiredDraft, _ messages: Messages) -> String {
        let key = expired.photoCount > 0 ? "drafts.expired" : "drafts.expiredEmpty"
        return messages.format(key, ["duration": Self.duration(options.retentionSeconds, messages)])
    }

    /// "7 days", "1 day", "12 hours"…: the retention in its largest whole unit.
    static func duration(_ seconds: Int, _ messages: Messages) -> String {
        let (size, unit) =
            [(86_400, "day"), (3_600, "hour"), (60, "minute")].first { seconds >= $0.0 } ?? (1, "second")
        let count = seconds / size
        return count == 1
            ? messages["drafts.duration.\(unit)"] : messages.format("drafts.duration.\(unit)s", ["n": String(count)])
    }

    /// The answer to a request naming a draft that is not open. The user's own expired draft: JSON 410
    /// with the expiry message for fetch calls (`json`), else a redirect to the creation page, which
    /// says it. Anything else (never existed, another user's, submitted, cancelled): nil, and the caller
    /// answers as before.
    func expiredAnswer(localID: String, userID: Int64, json: Bool, web: Web, context: WebContext) throws -> Response? {
        guard let expired = try store.expiredDraft(localID: localID, userID: userID) else { return nil }
        if json {
            return web.jsonError(
                "draft_expired", expiryMessage(expired, context.messages), status: 410, context: context)
        }
        return web.redirect("/reports/new?expired=\(expired.localID)", context: context)
    }

    /// What a creation or submission page says about an expired draft: the one its link names (where a
    /// request that found its draft expired sends the user), else, when this visit made a new draft,
    /// the last one with photos the sweep took that the user has not been told about yet.
    func expiryNotice(_ request: Request, userID: Int64, isNew: Bool, now: Double, messages: Messages) throws -> String?
    {
        if let named = request.queryValue("expired"), PhotoFiles.isValidID(named),
            let expired = try store.expiredDraft(localID: named, userID: userID)
        {
            try store.markAnnounced(localID: named, userID: userID, now: now)
            return expiryMessage(expired, messages)
        }
        guard isNew, let expired = try store.announceExpiry(userID: userID, now: now) else { return nil }
        return expiryMessage(expired, messages)
    }

    /// Cancel (CRE-01): the user's draft and every photo file of it.
    func cancel(userID: Int64) throws {
        for id in try store.cancelDrafts(userID: userID) { files.remove(id) }
    }

    /// The origin of a tile URL template for the CSP (`https://{s}.tile.example` → `https://*.tile.example`);
    /// nil when it is not an http(s) URL (then no outside image source is allowed at all).
    static func tileOrigin(_ template: String) -> String? {
        let lower = template.lowercased()
        guard let schemeEnd = lower.firstRange(of: "://"),
            ["http", "https"].contains(String(lower[..<schemeEnd.lowerBound]))
        else { return nil }
        let rest = lower[schemeEnd.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !host.isEmpty, !host.contains("@"), !host.contains(" "), !host.contains(";"), !host.contains("'") else {
            return nil
        }
        let origin = String(lower[..<schemeEnd.upperBound]) + String(host).replacing("{s}", with: "*")
        return origin.contains("{") || origin.contains("}") ? nil : origin
    }
}
