import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Removes photo files the server no longer needs: stored on the platform longer ago than the
/// retention, or of a report cancelled or deleted. Thumbnails stay (the list shows them; they are
/// small). Each run looks only at what became removable since the last one; the first run, at start,
/// looks at everything, so files left by a crash are not kept forever.
final class PhotoSweep: Sendable {
    let store: any OutboxStore
    let photosDirectory: String
    let retentionSeconds: Double
    /// Only touched from the store's queue (one run at a time), hence the lock is never contended.
    private let sweptUntil = Mutex(SweepMarks())

    private struct SweepMarks {
        var storedBefore = 0.0
        var endedBefore = 0.0
    }

    init(store: any OutboxStore, photosDirectory: String, retentionSeconds: Double) {
        self.store = store
        self.photosDirectory = photosDirectory
        self.retentionSeconds = retentionSeconds
    }

    /// Returns how many files were removed.
    func run(now: Double) throws -> Int {
        let marks = sweptUntil.withLock { $0 }
        let cutoff = now - retentionSeconds
        // Each window starts a second before the last one ended (lower bounds are excluded); one whose
        // start passed its end is empty, written as (end, end] since a range cannot run backwards.
        let names = try store.removablePhotos(
            stored: min(marks.storedBefore - 1, cutoff)...cutoff, ended: min(marks.endedBefore - 1, now)...now)
        var removed = 0
        for name in names where Self.isSafeName(name) {
            if unlink(photosDirectory + "/" + name) == 0 { removed += 1 }
        }
        sweptUntil.withLock { $0 = SweepMarks(storedBefore: cutoff, endedBefore: now) }
        return removed
    }

    /// A photo's local id names its file: never let one reach outside the folder.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }
}
