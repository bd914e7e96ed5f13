import Basics
import PlatformClient

extension ReportUploader {
    /// The review stopped a report the platform has or may have: once the undo window has passed it is
    /// removed there (a soft delete, as a user's deletion), after reconciling a create that may have
    /// landed. `beginWithdrawal` first: from then on no undo can take the report back.
    func withdraw(_ report: OutboxReport, session: OutboxSession, keeper: LeaseKeeper) async throws {
        let lease = keeper.lease
        guard try await store.run({ try $0.beginWithdrawal(report.id, lease: lease) }) else { return }
        var platformReportID = report.platformReportID
        if platformReportID == nil, report.createAttemptedAt != nil, case .success(let body) = report.newReport() {
            platformReportID = try await withCreateGate(
                "\(report.userID) " + SHA256Stream.hash((try? body.jsonBytes()) ?? []), keeper: keeper
            ) {
                try await reconcile(report, body: body, session: session, keeper: keeper)
            }
        }
        if let platformReportID {
            try await keeper.ensure(settings.callTimeoutSeconds + 1)
            metrics.attempt("delete")
            do {
                try await client.deleteReport(reportID: platformReportID, session: session.platformSession)
            } catch PlatformError.notFound {
                // Already gone there (an earlier DELETE whose answer was lost): done.
            }
        }
        try await store.run { try $0.finishWithdrawal(report.id, lease: lease) }
        log.info("upload worker: report \(report.localID) withdrawn after the review's decision")
    }
}
