import FoundationEssentials
import Storage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Removes photo files the server no longer needs: stored on the platform longer ago than the
/// retention, or of a report cancelled or deleted. Thumbnails stay (the list shows them; they are
/// small). Each run looks only at what became removable since the last one; the first run, at start,
/// looks at everything, so files left by a crash are not kept forever.
final class PhotoSweep: Sendable {
    let store: OutboxStore
    let photosDirectory: String
    let retentionSeconds: Double
    /// Only touched from the store's queue (one run at a time), hence the lock is never contended.
    private let sweptUntil = Mutex(SweepMarks())

    private struct SweepMarks {
        var storedBefore = 0.0
        var endedBefore = 0.0
    }

    init(store: OutboxStore, photosDirectory: String, retentionSeconds: Double) {
        self.store = store
        self.photosDirectory = photosDirectory
        self.retentionSeconds = retentionSeconds
    }

    /// Returns how many files were removed.
    func run(now: Double) throws -> Int {
        let marks = sweptUntil.withLock { $0 }
        let cutoff = now - retentionSeconds
        let names = try store.pool.read { db in
            let stored = try db.query(
                "SELECT local_id FROM photos WHERE state = 'stored' AND stored_at > ? AND stored_at <= ?",
                .real(marks.storedBefore - 1), .real(cutoff))
            let ended = try db.query(
                """
                SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id
                WHERE r.state IN ('cancelled', 'deleted') AND r.updated_at > ? AND r.updated_at <= ?
                """, .real(marks.endedBefore - 1), .real(now))
            return try (stored + ended).compactMap { try $0.string("local_id") }
        }
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
