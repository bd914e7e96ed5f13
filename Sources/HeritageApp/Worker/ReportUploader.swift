import Basics
import FoundationEssentials
import PlatformClient

/// Takes one report as far as it can go now: create (after reconciling, when an earlier attempt may
/// have created it), then its photos one after another in order (the platform keeps them in the
/// order received), then stored; or the platform deletion the user asked for. Every step re-reads
/// the report, so a change made meanwhile (deleting, held) is seen before the next call.
struct ReportUploader: Sendable {
    let store: OutboxQueue
    let client: PlatformClient
    let settings: WorkerSettings
    let photosDirectory: String
    let photoLimiter: AsyncLimiter
    let createGate: KeyedGate
    let metrics: WorkerMetrics
    let log: Log
    let isStopping: @Sendable () -> Bool

    /// Drives the report while this node holds `lease` on it (renewed meanwhile), then gives the
    /// lease up. A lease lost on the way (another node took the report over) ends the task at once:
    /// it calls and writes nothing more.
    func run(_ id: Int64, lease: Lease) async {
        let keeper = LeaseKeeper(lease, queue: store, duration: settings.leaseSeconds)
        let renewing = Task { await keeper.keepRenewing() }
        defer { renewing.cancel() }
        do {
            try await drive(id, keeper: keeper)
            _ = try? await store.lease { try $0.release(lease) }
        } catch let held as CreateGateHeld {
            // Another report of the user with the same fields is being created on another node: this
            // one goes back to the queue at once, unchanged, and the claim passes it over until then.
            let current = keeper.lease
            _ = try? await store.lease { try $0.handBack(current, gate: held.key) }
            metrics.handedBack()
        } catch let lost as LeaseLost {
            metrics.failure(WorkerFailureKind.leaseLost.rawValue)
            log.info("upload worker: report \(id): \(lost)")
        } catch let error as StoreError where error.kind == .busy {
            // Other writers kept the transaction from committing (PostgreSQL's serialization failures
            // past their retries, with several nodes writing one user's rows): the row keeps its last
            // committed state, and the report goes back to the queue now rather than when its lease
            // lapses. Whoever claims it next resumes from that state, reconciling what may have been sent.
            metrics.failure(WorkerFailureKind.store.rawValue)
            log.info("upload worker: report \(id) handed back: \(error)")
            let current = keeper.lease
            _ = try? await store.lease { try $0.release(current) }
        } catch {
            // A store failure: the row keeps its last committed state and is taken up again as soon
            // as the store answers and the lease is given back.
            metrics.failure(WorkerFailureKind.store.rawValue)
            log.error("upload worker: report \(id): \(error)")
            renewing.cancel()
            await keeper.releaseWhenTheStoreAnswers(isStopping: isStopping)
        }
    }

    private func drive(_ id: Int64, keeper: LeaseKeeper) async throws {
        let lease = keeper.lease
        while !isStopping() {
            guard let report = try await store.run({ try $0.report(id: id) }) else { return }
            let now = WallClock.now()
            switch report.state {
            case .deleting:
                if let next = report.nextAttemptAt, next > now { return }
            case .withdrawing:
                // Not before the decision's undo window has passed (nor a retry's delay).
                if let after = report.withdrawAfter, after > now { return }
                if let next = report.nextAttemptAt, next > now { return }
            case .queued, .creating, .created, .uploading:
                // The review stopped it: never created, never completed (a withdrawal is due instead).
                if report.isStoppedByReview { return }
            case .retryWait:
                if report.isStoppedByReview { return }
                if let next = report.nextAttemptAt, next > now { return }
            default:
                return
            }
            guard let session = try await usableSession(report) else {
                if report.state == .deleting || report.state == .withdrawing {
                    // A deletion cannot wait for sign-in in its own state: it stays deleting, retried later.
                    try await store.run {
                        try $0.recordRetry(
                            id, error: "waiting for sign-in", nextAttemptAt: now + settings.retryCapSeconds,
                            lease: lease)
                    }
                } else {
                    try await store.run { try $0.recordWaitingForSignIn(id, lease: lease) }
                }
                return
            }
            let goOn: Bool
            do {
                if report.state == .deleting {
                    try await delete(report, session: session, keeper: keeper)
                    return
                }
                if report.state == .withdrawing {
                    try await withdraw(report, session: session, keeper: keeper)
                    return
                }
                if report.platformReportID == nil {
                    goOn = try await createStep(report, session: session, keeper: keeper)
                } else {
                    goOn = try await photoStep(report, session: session, keeper: keeper)
                }
            } catch let error as PlatformError {
                try await handle(error, report: report, session: session, lease: lease)
                return
            } catch let problem as OutboxProblem {
                try await store.run { try $0.recordNeedsAttention(id, message: problem.message, lease: lease) }
                return
            }
            if !goOn { return }
        }
    }

    /// The user's platform session, unless it is known to be expired (then no call is made).
    private func usableSession(_ report: OutboxReport) async throws -> OutboxSession? {
        guard let session = try await store.run({ try $0.session(userID: report.userID) }) else { return nil }
        if let expires = session.expiresAt, expires <= WallClock.now() { return nil }
        let userID = report.userID
        if try await store.lease({ try $0.refusedSession(userID: userID) }) == session.fingerprint { return nil }
        return session
    }

    // MARK: - Create

    private func createStep(_ report: OutboxReport, session: OutboxSession, keeper: LeaseKeeper) async throws -> Bool {
        let lease = keeper.lease
        let body = try report.newReport().get()
        // Two reports of one user with the same fields must not reconcile against each other's
        // create in flight: same user and same body go one at a time, on every node.
        let gateKey = "\(report.userID) " + SHA256Stream.hash((try? body.jsonBytes()) ?? [])
        return try await withCreateGate(gateKey, keeper: keeper) {
            if report.createAttemptedAt != nil,
                let adopted = try await reconcile(report, body: body, session: session, keeper: keeper)
            {
                log.info("upload worker: report \(report.localID) found on the platform after an unanswered create")
                _ = adopted
                return true
            }
            guard try await store.run({ try $0.beginCreate(report.id, lease: lease) }) else { return true }
            try await keeper.ensure(settings.callTimeoutSeconds + 1)
            metrics.attempt("create")
            let created = try await client.createReport(
                body, idempotencyKey: report.localID, session: session.platformSession)
            guard
                try await store.run({
                    try $0.recordCreated(report.id, platformReportID: created.reportID, lease: lease)
                })
            else {
                throw OutboxProblem("the platform answered with a report another report here already has")
            }
            return true
        }
    }

    /// Runs `body` holding the create gate `key`. On one node (SQLite) the gate is in this process and
    /// a second task waits its turn; when several nodes share the database it is a row of `worker_gates`
    /// held by this report's lease, and a task that finds it held by another report throws
    /// `CreateGateHeld` at once, without waiting: its report is handed back and another one claimed.
    func withCreateGate<T: Sendable>(_ key: String, keeper: LeaseKeeper, _ body: () async throws -> T)
        async throws -> T
    {
        guard store.leases.isShared else { return try await createGate.withExclusive(key) { try await body() } }
        let (lease, now) = (keeper.lease, WallClock.now())
        guard try await store.lease({ try $0.takeCreateGate(key, lease: lease, now: now) }) else {
            throw CreateGateHeld(key: key)
        }
        do {
            let value = try await body()
            _ = try? await store.lease { try $0.releaseCreateGate(key, lease: lease) }
            return value
        } catch {
            _ = try? await store.lease { try $0.releaseCreateGate(key, lease: lease) }
            throw error
        }
    }

    /// Lists the user's reports and adopts the one an earlier attempt created, if any.
    func reconcile(_ report: OutboxReport, body: NewReport, session: OutboxSession, keeper: LeaseKeeper)
        async throws -> String?
    {
        guard let attemptedAt = report.createAttemptedAt else { return nil }
        let lease = keeper.lease
        try await keeper.ensure(settings.callTimeoutSeconds + 1)
        metrics.attempt("list")
        let listed = try await client.listReports(session: session.platformSession)
        let candidates = listed.filter { Reconciliation.sameFields(body, $0) }.map(\.reportID)
        guard !candidates.isEmpty else { return nil }
        let claimed = try await store.run { try $0.claimedReportIDs(among: candidates, userID: report.userID) }
        guard
            let match = Reconciliation.match(
                body, attemptedAt: attemptedAt, slack: settings.clockSlackSeconds, in: listed,
                isClaimed: { claimed.contains($0) })
        else { return nil }
        guard try await store.run({ try $0.recordCreated(report.id, platformReportID: match.reportID, lease: lease) })
        else {
            return nil
        }
        return match.reportID
    }

    // MARK: - Photos

    /// One photo of the report, or the settling of the one in doubt. One report is driven by one task
    /// at a time (`UploadWorker` keeps the ids it works on in `busy` and never takes one up twice),
    /// and that task sends one photo per step and waits for its answer (or its failure) before the
    /// next step; a photo left uploading is settled before any other is sent. So the worker never has
    /// two photos of one report in flight at once (`photosAtOnce` bounds photos across reports), and
    /// the platform receives them in order: what the count-based settling relies on. (A photo cut off
    /// by a crash or `kill -9` may still be processed by the platform after the restart's listing;
    /// only the Idempotency-Key, or a listing with SHA-256, covers that.)
    private func photoStep(_ report: OutboxReport, session: OutboxSession, keeper: LeaseKeeper) async throws -> Bool {
        let lease = keeper.lease
        guard let platformReportID = report.platformReportID else { return true }
        let photos = try await store.run { try $0.photos(reportID: report.id) }
        let uploading = photos.filter { $0.state == .uploading }
        if !uploading.isEmpty {
            try await settleUnansweredPhotos(
                uploading, storedCount: photos.filter { $0.state == .stored }.count, report: report,
                platformReportID: platformReportID, session: session, keeper: keeper)
            return true
        }
        guard let next = photos.first(where: { $0.state == .pending }) else {
            try await store.run { try $0.storeIfComplete(report.id, lease: lease) }
            return false
        }
        return try await photoLimiter.withPermit {
            guard try await store.run({ try $0.beginPhoto(next.id, reportID: report.id, lease: lease) }) else {
                return true
            }
            try await keeper.ensure(settings.callTimeoutSeconds + 1)
            metrics.attempt("photo")
            do {
                let uploaded = try await client.uploadPhoto(
                    reportID: platformReportID, photo: next.upload(photosDirectory: photosDirectory),
                    idempotencyKey: next.localID, session: session.platformSession)
                metrics.photoSent(bytes: next.size, stored: true)
                try await store.run {
                    try $0.recordPhotoStored(
                        next.id, reportID: report.id, platformPhotoID: uploaded.photoID, lease: lease)
                }
            } catch let error as PlatformError {
                metrics.photoSent(bytes: next.size, stored: false)
                // Surely not stored: plain pending again. Maybe stored: stays uploading, looked up next time.
                if !error.mayHaveBeenProcessed { try await store.run { try $0.resetPhoto(next.id, lease: lease) } }
                throw error
            }
            return true
        }
    }

    /// Photos whose upload got no answer (a lost connection, a crash): settled against the platform's
    /// listing of the report (by SHA-256 when it gives them, else by the number of photos, see
    /// `Reconciliation.settlePhotos`), so a stored photo is never sent twice.
    private func settleUnansweredPhotos(
        _ uploading: [OutboxPhoto], storedCount: Int, report: OutboxReport, platformReportID: String,
        session: OutboxSession, keeper: LeaseKeeper
    ) async throws {
        let lease = keeper.lease
        try await keeper.ensure(settings.callTimeoutSeconds + 1)
        metrics.attempt("list")
        let listed = try await client.listReports(session: session.platformSession)
        guard let onPlatform = listed.first(where: { $0.reportID == platformReportID }) else {
            throw PlatformError.notFound(message: "the report is no longer on the platform")
        }
        let claimed = try await store.run { try $0.claimedPhotoIDs(reportID: report.id) }
        let settlement = Reconciliation.settlePhotos(
            uploading: uploading, listed: onPlatform.photos, unreadable: onPlatform.unreadablePhotoCount,
            claimed: claimed, storedCount: storedCount)
        guard case .settled(let outcomes) = settlement else {
            if case .undecidable(let why) = settlement { throw OutboxProblem(why) }
            return
        }
        for photo in uploading {
            if case .landed(let platformPhotoID) = outcomes[photo.id] {
                try await store.run {
                    try $0.recordPhotoStored(
                        photo.id, reportID: report.id, platformPhotoID: platformPhotoID, lease: lease)
                }
            } else {
                try await store.run { try $0.resetPhoto(photo.id, lease: lease) }
            }
        }
    }

    // MARK: - Deletion (LST-07)

    private func delete(_ report: OutboxReport, session: OutboxSession, keeper: LeaseKeeper) async throws {
        let lease = keeper.lease
        var platformReportID = report.platformReportID
        if platformReportID == nil, report.createAttemptedAt != nil, case .success(let body) = report.newReport() {
            // Another node creating an identical report of the user now hands this deletion back.
            platformReportID = try await withCreateGate(
                "\(report.userID) " + SHA256Stream.hash((try? body.jsonBytes()) ?? []), keeper: keeper
            ) {
                try await reconcile(report, body: body, session: session, keeper: keeper)
            }
        }
        guard let platformReportID else {
            try await store.run { try $0.finishDeletion(report.id, wasOnPlatform: false, lease: lease) }
            return
        }
        try await keeper.ensure(settings.callTimeoutSeconds + 1)
        metrics.attempt("delete")
        do {
            try await client.deleteReport(reportID: platformReportID, session: session.platformSession)
        } catch PlatformError.notFound {
            // Already gone there (an earlier DELETE whose answer was lost): done.
        }
        try await store.run { try $0.finishDeletion(report.id, wasOnPlatform: true, lease: lease) }
    }

    // MARK: - Failures

    private func handle(_ error: PlatformError, report: OutboxReport, session: OutboxSession, lease: Lease)
        async throws
    {
        let id = report.id
        switch error {
        case .sessionExpired:
            metrics.failure(WorkerFailureKind.sessionExpired.rawValue)
            let (userID, fingerprint, now) = (report.userID, session.fingerprint, WallClock.now())
            try await store.lease { try $0.recordRefusedSession(userID: userID, fingerprint: fingerprint, now: now) }
            if report.state == .deleting || report.state == .withdrawing {
                try await store.run {
                    try $0.recordRetry(
                        id, error: "waiting for sign-in", nextAttemptAt: WallClock.now() + settings.retryCapSeconds,
                        lease: lease)
                }
            } else {
                try await store.run { try $0.recordWaitingForSignIn(id, refusedCall: true, lease: lease) }
            }
        case _ where report.state == .withdrawing:
            // A withdrawal is never given up: whatever the platform answered, it is tried again later.
            metrics.failure(WorkerFailureKind.retryLater.rawValue)
            let delay = settings.retryDelay(failuresInARow: report.attempts, retryAfter: error.retryAfter)
            try await store.run {
                try $0.recordRetry(
                    id, error: error.description, nextAttemptAt: WallClock.now() + delay, status: error.httpStatus,
                    lease: lease)
            }
        case _ where error.shouldRetryLater || error.mayHaveBeenProcessed:
            let kind: WorkerFailureKind = error.mayHaveBeenProcessed ? .outcomeUnknown : .retryLater
            metrics.failure(kind.rawValue)
            let delay = settings.retryDelay(failuresInARow: report.attempts, retryAfter: error.retryAfter)
            try await store.run {
                try $0.recordRetry(
                    id, error: error.description, nextAttemptAt: WallClock.now() + delay, status: error.httpStatus,
                    lease: lease)
            }
        case .notFound(let message):
            metrics.failure(WorkerFailureKind.notFound.rawValue)
            try await store.run {
                try $0.recordNeedsAttention(
                    id, message: "The platform no longer has this report (\(message)).", status: 404, lease: lease)
            }
        default:
            metrics.failure(WorkerFailureKind.rejected.rawValue)
            try await store.run {
                try $0.recordNeedsAttention(id, message: Self.message(error), status: error.httpStatus, lease: lease)
            }
        }
    }

    /// The platform's own message, as the user is shown it.
    static func message(_ error: PlatformError) -> String {
        switch error {
        case .rejected(_, _, let message), .forbidden(let message), .notFound(let message), .conflict(let message),
            .payloadTooLarge(let message), .authenticationFailed(let message):
            message
        default: error.description
        }
    }
}

/// The create gate of a report was held by another report's live lease (another node creates an
/// identical report of the same user): the report is handed back, not waited on.
struct CreateGateHeld: Error, Sendable {
    let key: String
}
