import HTTPServer
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where the review's long work runs: never on an MHD poll thread (a photo ZIP of a large view would
/// stall every connection that thread owns), but on small pools of threads of their own below the
/// requests' CPU priority. Exports: at most `limit` at once per node and one per coordinator, refused
/// under the uploads' free-disk floor (the exports' files go to the data folder's disk), and answered
/// 503 past the request deadline, their file removed. Bulk actions: on a pool of their own (`bulk`).
final class ExportRunner: Sendable {
    /// How far below the requests' CPU priority an export runs: below photo decoding too
    /// (`Drafts.photoNice`, 10), so that a volunteer's photo never waits for a coordinator's file. An
    /// export only reads, and writes its audit row at the end. Beside four exporting coordinators, at
    /// +5 a photo upload took 2.7–3.1× as long as idle and `/healthz`'s p99 was 0.6–7.1× idle; at +15,
    /// 1.2–1.3× and 0.6–1.1× (docs/BENCHMARKS.md "Exports against everyone else").
    static let exportNice: Int32 = 15
    /// Bulk actions stay at +5, above photo decoding: a bulk approval holds the database's write lock
    /// for each 500 reports it decides (`decideAll`), and starving it of CPU meanwhile would keep every
    /// volunteer's write waiting on that lock.
    static let bulkNice: Int32 = 5

    /// The exports' pool.
    let work: BlockingWork
    /// The bulk actions' pool (`RouteGroup.routeOnPool`), as many at once as exports.
    let bulk: BlockingWork
    let directory: String
    let minimumFreeBytes: Int
    let deadlineSeconds: Double
    private let running = Mutex<Set<String>>([])

    init(directory: String, minimumFreeBytes: Int, deadlineSeconds: Double, limit: Int = 2) {
        self.directory = directory
        self.minimumFreeBytes = minimumFreeBytes
        self.deadlineSeconds = deadlineSeconds
        work = BlockingWork(label: "har.exports", limit: limit, threads: .background(nice: Self.exportNice))
        bulk = BlockingWork(label: "har.bulk", limit: limit, threads: .background(nice: Self.bulkNice))
    }

    /// Runs `export` for `user` on the pool, or answers why not: 429 while that coordinator's last one
    /// runs, 507 under the disk floor, 503 past the deadline.
    func run(
        user: WebUser, review: Review, context: WebContext, _ export: @escaping @Sendable () throws -> Response
    ) async throws -> Response {
        let web = review.web
        if let free = UploadRoom.freeBytes(on: directory), free < minimumFreeBytes {
            web.log.warning("export refused: free disk space under the floor")
            return web.errorPage(
                status: 507, titleKey: "review.exportNoRoomTitle", messageKey: "review.exportNoRoom", context: context)
        }
        let key = user.email.lowercased()
        guard running.withLock({ $0.insert(key).inserted }) else {
            var busy = web.errorPage(
                status: 429, titleKey: "review.exportBusyTitle", messageKey: "review.exportBusy", context: context)
            busy.headers.add("Retry-After", "5")
            return busy
        }
        defer { _ = running.withLock { $0.remove(key) } }
        let started = Self.now()
        let response = try await work.run(export)
        guard Self.now() - started < deadlineSeconds else {
            // The server has answered 503 by now and drops this answer: its file would stay behind.
            if case .file(let path, _) = response.body { unlink(path) }
            return web.errorPage(
                status: 503, titleKey: "review.exportTooLongTitle", messageKey: "review.exportTooLong", context: context
            )
        }
        return response
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
