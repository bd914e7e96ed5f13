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
    /// Called after a report is queued: the upload worker's `wake()` (issue 5), so it starts at once
    /// instead of at its next poll.
    var onQueued: @Sendable () -> Void = {}
}

/// The drafts' store, files and options, shared by the creation, submission and photo routes.
struct Drafts: Sendable {
    let store: DraftStore
    let files: PhotoFiles
    let options: DraftOptions
    let log: Log

    init(web: Web, options: DraftOptions) {
        store = DraftStore(store: web.store)
        files = PhotoFiles(directory: web.photosDirectory)
        self.options = options
        log = web.log
    }

    /// Deletes drafts abandoned for longer than the retention, rows first, then their files (a crash in
    /// between leaves files no row names, never a row whose file is gone).
    func sweep(now: Double) {
        do {
            let photos = try store.sweepDrafts(untouchedSince: now - Double(options.retentionSeconds))
            for id in photos { files.remove(id) }
            if !photos.isEmpty { log.info("removed \(photos.count) photo(s) of abandoned drafts") }
        } catch {
            log.info("draft sweep failed: \(error)")
        }
    }

    /// Cancel (CRE-01): the user's draft and every photo file of it.
    func cancel(userID: Int64) throws {
        for id in try store.cancelDrafts(userID: userID) { files.remove(id) }
    }

    /// ISO 8601 UTC, seconds precision: the photos' captured_at when the browser or EXIF gave none.
    static func isoTime(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// The origin of a tile URL template for the CSP (`https://{s}.tile.example` → `https://*.tile.example`);
    /// nil when it is not an http(s) URL (then no outside image source is allowed at all).
    static func tileOrigin(_ template: String) -> String? {
        let lower = template.lowercased()
        guard let schemeEnd = lower.firstRange(of: "://"), ["http", "https"].contains(String(lower[..<schemeEnd.lowerBound]))
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
