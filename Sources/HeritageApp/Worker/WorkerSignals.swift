/// What the screens tell the upload worker, so that it acts now rather than at its next poll: one
/// object, made once by `Application` from the worker and handed to every screen through `Web`. A
/// signal only wakes the worker; what is due is decided by its own query (`OutboxDue.sql`).
struct WorkerSignals: Sendable {
    /// Something may be due at once: a report queued (a volunteer's, a kiosk's, a device's outbox), a
    /// reporter's deletion of one in transfer, a review action that makes one due or stops one
    /// (`ReviewAction.wakesWorker`).
    var reportDue: @Sendable () -> Void = {}
    /// A user signed in: their reports waiting for sign-in resume.
    var userSignedIn: @Sendable (Int64) -> Void = { _ in }

    init() {}

    init(_ worker: UploadWorker) {
        reportDue = { worker.wake() }
        userSignedIn = { worker.userSignedIn(userID: $0) }
    }
}
