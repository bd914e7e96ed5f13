import Basics
import PlatformClient
import Synchronization

/// Makes the coordinators' digests and the administrators' daily notes (NOT-02): once a minute, for
/// every account holding a role, the current period's row when it is due and there is something to
/// tell. The row's key names the period, and the mail outbox keeps one row per (key, recipient), so a
/// period gets its digest once however many nodes run this and however often they restart. It runs
/// with mail off too: the digest's counts are also the coordinator's notice in the app.
final class MailDigests: Sendable {
    private let store: any CoordinatorMailStore
    private let log: Log
    /// Called after a pass queued mail, so that the mail worker sends it now rather than at its next poll.
    private let queued: @Sendable () -> Void
    private let loop = PollingLoop()
    private let work = BlockingWork(label: "digests", limit: 1, threads: .shared)
    private let zones = Mutex([String: ZoneOffsets]())

    /// Problems an administrator hears of once they are this old.
    static let adminNoteAge = 86_400.0

    init(store: any CoordinatorMailStore, log: Log, queued: @escaping @Sendable () -> Void) {
        self.store = store
        self.log = log
        self.queued = queued
    }

    func start(interval: Double = 60) {
        loop.start(interval: interval) { [self] in
            _ = try? await work.run { [self] in run(now: WallClock.now()) }
        }
    }

    func stop(timeout: Double = 5) { loop.stop(timeout: timeout) }

    /// One pass at `now` (the tests give their own clock); returns how many rows it queued. Blocking.
    @discardableResult
    func run(now: Double) -> Int {
        var made = 0
        do {
            for recipient in try store.digestRecipients() {
                made += try digest(for: recipient, now: now) ? 1 : 0
                made += try adminNote(for: recipient, now: now) ? 1 : 0
            }
        } catch {
            log.error("mail digests: \(error)")
        }
        if made > 0 { queued() }
        return made
    }

    private func digest(for recipient: DigestRecipient, now: Double) throws -> Bool {
        let choice = recipient.choice
        switch choice.mode {
        case .none:
            return false
        case .eachKiosk, .eachAll:
            // The hourly cap's overflow: the reports whose mail was held back in the hour just ended.
            let period = DigestSchedule.current(daily: false, hour: 0, zone: zone(choice.timeZone), now: now)
            return try store.queueDigest(
                userID: recipient.userID, key: "digest:" + period.key, foldedBefore: period.start, now: now,
                token: Crypto.randomHex(bytes: 16))
        case .hourly, .daily:
            let period = DigestSchedule.current(
                daily: choice.mode == .daily, hour: choice.digestHour, zone: zone(choice.timeZone), now: now)
            guard period.start >= recipient.since else { return false }
            return try store.queueDigest(
                userID: recipient.userID, key: "digest:" + period.key, foldedBefore: nil, now: now,
                token: Crypto.randomHex(bytes: 16))
        }
    }

    private func adminNote(for recipient: DigestRecipient, now: Double) throws -> Bool {
        guard recipient.isAdmin, recipient.wantsAdminNote else { return false }
        let choice = recipient.choice
        let period = DigestSchedule.current(
            daily: true, hour: choice.digestHour, zone: zone(choice.timeZone), now: now)
        guard period.start >= recipient.since else { return false }
        return try store.queueAdminNote(
            userID: recipient.userID, key: "admin_note:" + period.key, olderThan: Self.adminNoteAge, now: now,
            token: Crypto.randomHex(bytes: 16))
    }

    /// A zone read once per name; an unknown one (the file gone since it was chosen) counts as UTC.
    private func zone(_ name: String) -> ZoneOffsets {
        if let known = zones.withLock({ $0[name] }) { return known }
        let zone = ZoneOffsets(name: name) ?? .utc
        zones.withLock { $0[name] = zone }
        return zone
    }
}
