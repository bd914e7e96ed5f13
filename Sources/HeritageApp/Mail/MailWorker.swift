import Basics
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// Sends the mail outbox: claims due rows under a lease, hands each to the SMTP server, records the end.
/// A 5xx is recorded as failed and never retried; a 4xx or no connection is retried with exponential
/// backoff up to `maxAttempts`. The lease outlasts one SMTP exchange, so only a dead node's rows are taken
/// over. What SMTP cannot make exactly once is said in docs/NOTIFICATIONS.md: a node killed after the
/// server took a message but before the row was marked sent, or a connection lost after DATA, sends
/// that message again, with the same Message-ID.
final class MailWorker: Sendable {
    static let maxAttempts = 10

    private let store: any MailOutboxStore
    private let sender: SMTPSender
    private let messages: MailJobMessages
    private let node: String
    private let retryBase: Double
    private let retryCap: Double
    private let log: Log
    private let loop = PollingLoop()
    private let work = BlockingWork(label: "mail", limit: 1, threads: .shared)

    init(
        store: any MailOutboxStore, sender: SMTPSender, messages: MailJobMessages, node: String, retryBase: Double,
        retryCap: Double, log: Log
    ) {
        self.store = store
        self.sender = sender
        self.messages = messages
        self.node = node
        self.retryBase = retryBase
        self.retryCap = retryCap
        self.log = log
    }

    func start() {
        loop.start(interval: 1) { [self] in
            if let left = try? await work.run({ [self] in try store.releaseLeft(owner: node) }), left > 0 {
                log.info("mail: \(left) message(s) a former run left mid-send go again, with the same Message-ID")
            }
        } pass: { [self] in
            _ = try? await work.run { [self] in drain(now: WallClock.now()) }
        }
    }

    func wake() { loop.wake() }

    func stop(timeout: Double = 5) { loop.stop(timeout: timeout) }

    /// Sends every due message once; returns how many attempts were made. Blocking.
    @discardableResult
    func drain(now: Double) -> Int {
        let lease = now + sender.settings.timeoutSeconds + 30
        let jobs: [MailJob]
        do {
            jobs = try store.claimDue(
                owner: node, now: now, leaseUntil: lease, limit: 20, newToken: { Crypto.randomHex(bytes: 16) })
        } catch {
            log.error("mail: \(error)")
            return 0
        }
        for job in jobs where !loop.isStopping { attempt(job) }
        return jobs.count
    }

    private func attempt(_ job: MailJob) {
        let result: MailAttemptResult
        do {
            let message = try messages.message(for: job, from: sender.settings.from, now: WallClock.now())
            result = self.result(of: sender.send(message), attempts: job.attempts)
        } catch {
            result = .failed(reply: "not composed: \(error)")
        }
        if case .failed(let reply) = result { log.warning("mail \(job.id) (\(job.kind)) failed: \(reply)") }
        do {
            _ = try store.finish(id: job.id, owner: node, result: result, now: WallClock.now())
        } catch {
            log.error("mail: \(error)")
        }
    }

    private func result(of outcome: SMTPOutcome, attempts: Int) -> MailAttemptResult {
        switch outcome {
        case .sent(let reply): return .sent(reply: reply)
        case .rejected(let code, let reply): return .failed(reply: "\(code) \(reply)")
        case .deferred(_, let reply), .uncertain(let reply):
            guard attempts < Self.maxAttempts else { return .failed(reply: "gave up after \(attempts): \(reply)") }
            let delay = min(retryCap, retryBase * Double(1 << min(attempts - 1, 30)))
            return .retry(at: WallClock.now() + delay, reply: reply)
        }
    }
}
