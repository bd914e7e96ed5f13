import Basics
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Scheduled backups in `har serve` (OPS-03): every `backup_interval` seconds a backup into
/// `backup_dir`, made by `BackupCreator` on a low-priority thread of its own; then, and only then,
/// the backups the retention (`backup_keep`) no longer keeps are deleted, so an older backup never
/// goes before a newer one has been written and checked. The first is due one interval after the
/// newest one found there (soon after start when there is none).
final class BackupSchedule: Sendable {
    let folder: String
    let interval: Double
    let retention: BackupRetention
    let creator: BackupCreator
    let metrics: BackupMetrics
    let log: Log
    private let work = BlockingWork(label: "backup", limit: 1, threads: .background(nice: 10))
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// This interval's turn: the `backup` gate of `worker_gates`, which one node holds at a time
    /// (through the database, with PostgreSQL's several nodes), kept after a good backup so that the
    /// others pass this interval, given back after a failure so that the next try may run anywhere.
    struct Turn: Sendable {
        let take: @Sendable (_ now: Double, _ until: Double) throws -> Bool
        let giveBack: @Sendable () throws -> Void

        init(stores: Stores, node: String) {
            let leases = stores.leases
            take = { now, until in try leases.takeGate("backup", holder: node, now: now, until: until) }
            giveBack = { try leases.releaseGate("backup", holder: node) }
        }
    }

    let turn: Turn?

    /// Nil when `backup_dir` is unset. With `stores` on PostgreSQL, one node of those sharing the
    /// database makes each interval's backup.
    init?(configuration: Configuration, metrics: BackupMetrics, log: Log, stores: Stores? = nil) {
        guard let folder = configuration.backupDir, let retention = BackupRetention(keep: configuration.backupKeep)
        else { return nil }
        // One process has a SQLite data folder: no one to share the turn with.
        turn = stores.flatMap { $0.leases.isShared ? Turn(stores: $0, node: configuration.nodeName) : nil }
        self.folder = BackupRestorer.trimmed(folder)
        interval = Double(configuration.backupInterval)
        self.retention = retention
        creator = BackupCreator(configuration: configuration)
        self.metrics = metrics
        self.log = log
    }

    func start() throws {
        try DataFolder.prepare(folder)
        let newest = backups().map(\.time).max()
        metrics.scheduled(lastSuccess: newest, interval: interval, now: WallClock.now())
        let firstDue = newest.map { $0 + interval } ?? WallClock.now() + 5
        task.withLock { $0 = Task.detached { await self.run(firstDue: firstDue) } }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    private func run(firstDue: Double) async {
        var due = firstDue
        while !Task.isCancelled {
            let wait = due - WallClock.now()
            if wait > 0 {
                try? await Task.sleep(for: .milliseconds(Int(min(wait, 60) * 1000)))
                continue
            }
            let now = WallClock.now()
            if let turn, (try? turn.take(now, now + interval * 0.9)) != true {
                // Another node makes this interval's backup (or the database is down): looked at again
                // in a while; its backup, in a shared backup_dir, is this node's last success too.
                metrics.passed(newest: backups().map(\.time).max())
                due = now + min(interval, 300)
                continue
            }
            let path = BackupCommand.defaultPath(in: folder, now: now)
            do {
                let (creator, started) = (creator, WallClock.now())
                let result = try await work.run { try creator.create(to: path) }
                metrics.succeeded(at: started, seconds: result.seconds, bytes: result.bytes)
                log.info("backup \(result.path): \(result.bytes) bytes, checked, in \(result.seconds) s")
                prune()
                due = started + interval
            } catch {
                metrics.failed()
                try? turn?.giveBack()
                log.error("scheduled backup failed: \(error)")
                due = WallClock.now() + min(interval, 300)
            }
        }
    }

    /// Deletes the backups the retention no longer keeps, and `.partial` files a killed run left
    /// more than an hour ago.
    private func prune() {
        let all = backups()
        let keep = retention.kept(all.map(\.time))
        for backup in all where !keep.contains(backup.time) {
            if unlink(folder + "/" + backup.name) == 0 { log.info("backup \(backup.name) deleted (retention)") }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix("har-backup-") && name.hasSuffix(".partial") {
            var info = stat()
            if stat(folder + "/" + name, &info) == 0, Double(info.st_mtim.tv_sec) < WallClock.now() - 3600 {
                unlink(folder + "/" + name)
            }
        }
    }

    private func backups() -> [(name: String, time: Double)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { name in BackupRetention.time(ofBackupNamed: name).map { (name, $0) } }
    }
}
