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
        var passed = 0
        var interval = 0.0
        /// When the schedule started: the reference while no backup has succeeded yet.
        var since = 0.0
    }

    private let figures = Mutex(Figures())

    func scheduled(lastSuccess: Double?, interval: Double, now: Double) {
        figures.withLock {
            $0.isScheduled = true
            $0.interval = interval
            $0.since = now
            if let lastSuccess { $0.lastSuccess = lastSuccess }
        }
    }

    /// Backups scheduled, and the last good one older than two intervals.
    struct Overdue: Equatable {
        /// When the last good backup began; nil when none has succeeded since `since`.
        let lastSuccess: Double?
        let since: Double
    }

    /// Whether the last good backup began more than two intervals before `now` (none yet: the
    /// schedule started that long ago); nil when it is recent enough or nothing is scheduled.
    func overdue(now: Double) -> Overdue? {
        let figures = figures.withLock { $0 }
        guard figures.isScheduled, figures.interval > 0 else { return nil }
        let reference = figures.lastSuccess > 0 ? figures.lastSuccess : figures.since
        guard now - reference > 2 * figures.interval else { return nil }
        return Overdue(lastSuccess: figures.lastSuccess > 0 ? figures.lastSuccess : nil, since: figures.since)
    }

    func succeeded(at time: Double, seconds: Double, bytes: Int) {
        figures.withLock {
            $0.lastSuccess = time
            $0.duration = seconds
            $0.bytes = bytes
        }
    }

    func failed() { figures.withLock { $0.failures += 1 } }

    /// Another node had this interval's turn; `newest` is the newest backup in `backup_dir`.
    func passed(newest: Double?) {
        figures.withLock {
            $0.passed += 1
            if let newest, newest > $0.lastSuccess { $0.lastSuccess = newest }
        }
    }

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
            # HELP har_backup_turns_passed_total Scheduled backups left to another node sharing the database.
            # TYPE har_backup_turns_passed_total counter
            har_backup_turns_passed_total \(figures.passed)

            """
    }
}
