import FoundationEssentials
import PlatformClient
import Synchronization

/// A `LocalPlatformStore` in memory, for unit tests and throwaway platforms.
public final class InMemoryPlatformStore: LocalPlatformStore {
    private struct State {
        var accounts: [String: AccountRecord] = [:]
        var sessions: [String: SessionRecord] = [:]
        var reports: [String: ReportRecord] = [:]
        var reportOrder: [String] = []
        var photos: [String: [PhotoRecord]] = [:]
        var answers: [String: IdempotentAnswer] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func account(email: String) -> AccountRecord? { state.withLock { $0.accounts[email] } }
    public func insertAccount(_ account: AccountRecord) { state.withLock { $0.accounts[account.email] = account } }
    public func insertSession(_ session: SessionRecord) { state.withLock { $0.sessions[session.id] = session } }
    public func session(id: String) -> SessionRecord? { state.withLock { $0.sessions[id] } }

    public func insertReport(_ report: ReportRecord) {
        state.withLock {
            $0.reports[report.id] = report
            $0.reportOrder.append(report.id)
        }
    }

    public func report(id: String) -> ReportRecord? { state.withLock { $0.reports[id] } }

    public func reports(ownerID: String) -> [ReportRecord] {
        state.withLock { state in
            state.reportOrder.compactMap { state.reports[$0] }.filter { $0.ownerID == ownerID && $0.deletedTime == nil }
        }
    }

    public func markReportDeleted(id: String, at time: Date) {
        state.withLock { $0.reports[id]?.deletedTime = time }
    }

    public func insertPhoto(_ photo: PhotoRecord) {
        state.withLock { $0.photos[photo.reportID, default: []].append(photo) }
    }
    public func photos(reportID: String) -> [PhotoRecord] { state.withLock { $0.photos[reportID] ?? [] } }

    public func idempotentAnswer(scope: String, key: String) -> IdempotentAnswer? {
        state.withLock { $0.answers[scope + "\n" + key] }
    }

    public func saveIdempotentAnswer(_ answer: IdempotentAnswer) {
        state.withLock { $0.answers[answer.scope + "\n" + answer.key] = answer }
    }
}
