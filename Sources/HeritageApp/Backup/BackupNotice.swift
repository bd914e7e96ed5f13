import Basics
import Mustache

/// The line `/review` shows administrators when the last successful scheduled backup is older than
/// two intervals (OPS-03), in their language (`partials/backup-overdue`); nothing for anyone else, or
/// when backups are not scheduled on this node.
enum BackupNotice {
    static func value(_ metrics: BackupMetrics?, role: Role, messages: Messages, now: Double) -> MustacheValue {
        guard role >= .admin, let overdue = metrics?.overdue(now: now) else { return .null }
        if let last = overdue.lastSuccess {
            return .string(messages.format("review.backupOverdue", ["date": shown(last)]))
        }
        return .string(messages.format("review.backupNone", ["date": shown(overdue.since)]))
    }

    /// `2026-12-03 02:00`, UTC.
    private static func shown(_ seconds: Double) -> String {
        String(ISO8601.utc(seconds: seconds).prefix(16).map { $0 == "T" ? " " : $0 })
    }
}
