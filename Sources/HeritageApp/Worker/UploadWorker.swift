import Basics
import Dispatch
import FoundationEssentials
import PlatformClient
import Synchronization

/// The upload worker inside `har serve`: drains the outbox into the platform, every report
/// exactly once. A loop takes up due reports, at most `reportsAtOnce` at a time, each in a task of its
/// own (`ReportUploader`); it sleeps until woken (a submission, a sign-in, a report finished) or until
/// the next retry is due. Nothing here runs on an MHD thread, and nothing blocking runs on the Swift
/// pool: platform calls run on the client's threads, SQLite on the store's queue.
///
/// Several nodes may drain one outbox: the loop claims due reports with a lease
/// (`OutboxLeases`), each task keeps it renewed and passes it to every transition, which is fenced by
/// it; a node that lost a lease (paused, cut off) stops that report without a call or a write, and a dead
/// node's reports are claimed by another once their lease lapses. On SQLite (one node) every claim
/// succeeds.
///
/// Crash recovery needs no special pass: the state committed before each call says where to resume.
/// A report left in creating has `create_attempted_at`, so it is reconciled before it is created
/// again; photos left in uploading are looked up on the platform by SHA-256 before any is re-sent.
final class UploadWorker: Sendable {
    let store: OutboxQueue
    let metrics: WorkerMetrics
    private let settings: WorkerSettings
    private let uploader: ReportUploader
    private let sweep: PhotoSweep
    private let signal = WakeSignal()
    private let log: Log

    private struct State {
        var busy: Set<Int64> = []
        var started = false
    }

    private let state = Mutex(State())
    private let stopping = StopFlag()
    private let loopFinished = DispatchSemaphore(value: 0)

    init(
        store: any OutboxStore, leases: any OutboxLeases, client: PlatformClient, settings: WorkerSettings,
        dataDirectory: String, metrics: WorkerMetrics, log: Log, photosDirectory: String? = nil
    ) {
        let photosDirectory = photosDirectory ?? dataDirectory + "/photos"
        let queue = OutboxQueue(store, leases: leases)
        self.store = queue
        self.settings = settings
        self.log = log
        self.metrics = metrics
        sweep = PhotoSweep(
            store: store, photosDirectory: photosDirectory, retentionSeconds: settings.photoRetentionSeconds)
        let stopping = self.stopping
        uploader = ReportUploader(
            store: queue, client: client, settings: settings, photosDirectory: photosDirectory,
            photoLimiter: AsyncLimiter(limit: settings.photosAtOnce), createGate: KeyedGate(),
            metrics: metrics, log: log,
            isStopping: { stopping.isSet })
    }

    /// Starts the loop (once).
    func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        Task.detached { [self] in
            await loop()
            loopFinished.signal()
        }
    }

    /// Look at the outbox now: a report was submitted (or changed by a coordinator).
    func wake() { signal.signal() }

    /// A user signed in again: their reports waiting for sign-in resume at once.
    /// (Its reports resume when its session in the table is another than the one refused.)
    func userSignedIn(userID: Int64) { wake() }

    /// Stops taking up reports and waits (at most `timeout` seconds) for the calls in flight to end.
    /// Whatever is cut short resumes from its committed state at the next start.
    func stop(timeout: Double = 5) {
        stopping.set()
        let started = state.withLock { $0.started }
        guard started else { return }
        signal.signal()
        _ = loopFinished.wait(timeout: .now() + timeout)
    }

    private var isStopping: Bool { stopping.isSet }

    private func loop() async {
        if let counts = try? await store.run({ try $0.countsByState() }) {
            let resuming = [ReportState.creating, .created, .uploading].compactMap { state in
                counts[state.rawValue].map { "\($0) \(state.rawValue)" }
            }
            if !resuming.isEmpty { log.info("upload worker: resuming \(resuming.joined(separator: ", "))") }
        }
        let node = settings.nodeID
        if let left = try? await store.lease({ try $0.releaseLeft(node: node) }), left > 0 {
            log.info("upload worker: gave up \(left) leases a former run of this node left")
        }
        var nextSweep = 0.0
        while !isStopping {
            let now = WallClock.now()
            do {
                try await resumeSignedInUsers(now: now)
                try await takeUpDueReports(now: now)
            } catch {
                log.error("upload worker: \(error)")
            }
            if now >= nextSweep {
                nextSweep = now + settings.sweepSeconds
                // One node sweeps the shared photo folder per period: the one that takes the turn.
                let (sweep, node, until) = (self.sweep, settings.nodeID, now + settings.sweepSeconds * 0.9)
                let turn = try? await store.lease {
                    try $0.takeGate("photo_sweep", holder: node, now: now, until: until)
                }
                if turn == true, let removed = try? await store.run({ _ in try sweep.run(now: now) }), removed > 0 {
                    log.info("upload worker: removed \(removed) photo files past their retention")
                }
            }
            var wait = settings.pollSeconds
            if let due = try? await store.run({ try $0.nextDueTime() }) {
                wait = min(wait, max(due - WallClock.now(), 0.001))
            }
            await signal.wait(seconds: wait)
        }
        // Let the reports in flight reach their next commit.
        while state.withLock({ !$0.busy.isEmpty }) { await signal.wait(seconds: 0.05) }
    }

    private func takeUpDueReports(now: Double) async throws {
        let busy = state.withLock { $0.busy }
        let free = settings.reportsAtOnce - busy.count
        guard free > 0 else { return }
        let (node, duration) = (settings.nodeID, settings.leaseSeconds)
        let claimed = try await store.lease { try $0.claim(node: node, now: now, duration: duration, limit: free) }
        for lease in claimed {
            let id = lease.reportID
            // Still ours from a task about to end (its lease lapsed unrenewed): that task is fenced out,
            // and this claim waits for the next round.
            guard state.withLock({ $0.busy.insert(id).inserted }) else {
                _ = try? await store.lease { try $0.release(lease) }
                continue
            }
            if let from = lease.takenOverFrom {
                metrics.tookOver()
                log.info("upload worker: report \(id) taken over from \(from) mid-transfer (epoch \(lease.epoch))")
            }
            Task.detached { [self] in
                await uploader.run(id, lease: lease)
                state.withLock { _ = $0.busy.remove(id) }
                signal.signal()
            }
        }
    }

    /// Reports waiting for sign-in resume when their user's session in the table is a new one.
    private func resumeSignedInUsers(now: Double) async throws {
        let waiting = try await store.run { try $0.usersWaitingForSignIn(now: now) }
        for (userID, session) in waiting {
            guard let session,
                try await store.lease({ try $0.refusedSession(userID: userID) }) != session.fingerprint
            else { continue }
            let resumed = try await store.run { try $0.resumeWaitingForSignIn(userID: userID) }
            if resumed > 0 { log.info("upload worker: user \(userID) signed in again; \(resumed) reports resume") }
        }
    }

    /// `/metrics` lines of the worker and the outbox.
    func metricsText() -> String {
        let depth = (try? store.outbox.countsByState()) ?? [:]
        return metrics.text(depthByState: depth)
    }
}

/// Set once when the worker stops; read by every report task between its steps.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
