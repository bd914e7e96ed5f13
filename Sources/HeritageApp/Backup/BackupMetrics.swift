import Synchronization

/// The scheduled backups' figures for `/metrics` (OPS-03): when the last one succeeded, how long it
/// took, how large it is, and how many failed. Shown only when `backup_dir` schedules backups.
final class BackupMetrics: Sendable {
    private struct Figures {
        var isScheduled = false
        var lastSuccess = 0.0
        var duration = 0.0
        var bytes = 0
        var failures = 0
    }

    private let figures = Mutex(Figures())

    func scheduled(lastSuccess: Double?) {
        figures.withLock {
            $0.isScheduled = true
            if let lastSuccess { $0.lastSuccess = lastSuccess }
        }
    }

    func succeeded(at time: Double, seconds: Double, bytes: Int) {
        figures.withLock {
            $0.lastSuccess = time
            $0.duration = seconds
            $0.bytes = bytes
        }
    }

    func failed() { figures.withLock { $0.failures += 1 } }

    var lastSuccess: Double { figures.withLock { $0.lastSuccess } }

    var text: String {
        let figures = figures.withLock { $0 }
        guard figures.isScheduled else { return "" }
        return """
            # HELP har_backup_last_success_timestamp_seconds When the last backup that was written and checked began (0: none yet).
            # TYPE har_backup_last_success_timestamp_seconds gauge
            har_backup_last_success_timestamp_seconds \(figures.lastSuccess)
            # HELP har_backup_duration_seconds How long the last successful backup took, check included.
            # TYPE har_backup_duration_seconds gauge
            har_backup_duration_seconds \(figures.duration)
            # HELP har_backup_bytes Size of the last successful backup.
            # TYPE har_backup_bytes gauge
            har_backup_bytes \(figures.bytes)
            # HELP har_backup_failures_total Scheduled backups that failed since start.
            # TYPE har_backup_failures_total counter
            har_backup_failures_total \(figures.failures)

            """
    }
}
