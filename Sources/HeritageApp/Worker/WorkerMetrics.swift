import Synchronization

/// The worker's counters for `/metrics`: attempts by call, failures by kind, bytes sent. Queue depth
/// by state is read from the table when scraped, so it is right even after a restart.
final class WorkerMetrics: Sendable {
    private struct Counters {
        var attempts: [String: Int] = [:]
        var failures: [String: Int] = [:]
        var photoBytesSent = 0
        var photoBytesStored = 0
        var reportsStored = 0
        var takeovers = 0
        var handbacks = 0
    }

    private let counters = Mutex(Counters())

    func attempt(_ call: String) { counters.withLock { $0.attempts[call, default: 0] += 1 } }
    func failure(_ kind: String) { counters.withLock { $0.failures[kind, default: 0] += 1 } }
    /// A report taken over mid-transfer from a node whose lease lapsed.
    func tookOver() { counters.withLock { $0.takeovers += 1 } }
    /// A report handed back at once because another node held its create gate.
    func handedBack() { counters.withLock { $0.handbacks += 1 } }
    func photoSent(bytes: Int, stored: Bool) {
        counters.withLock {
            $0.photoBytesSent += bytes
            if stored { $0.photoBytesStored += bytes }
        }
    }

    /// Prometheus text for these counters and the given queue depths.
    func text(depthByState: [String: Int]) -> String {
        let snapshot = counters.withLock { $0 }
        var text = """
            # HELP har_outbox_reports Reports in the store, by state.
            # TYPE har_outbox_reports gauge

            """
        for state in ReportState.allCases {
            text += "har_outbox_reports{state=\"\(state.rawValue)\"} \(depthByState[state.rawValue] ?? 0)\n"
        }
        text += """
            # HELP har_worker_attempts_total Platform calls made by the upload worker, by call.
            # TYPE har_worker_attempts_total counter

            """
        for call in ["create", "photo", "list", "delete"] {
            text += "har_worker_attempts_total{call=\"\(call)\"} \(snapshot.attempts[call] ?? 0)\n"
        }
        text += """
            # HELP har_worker_failures_total Failed platform calls of the upload worker, by kind.
            # TYPE har_worker_failures_total counter

            """
        for kind in WorkerFailureKind.allCases {
            text += "har_worker_failures_total{kind=\"\(kind.rawValue)\"} \(snapshot.failures[kind.rawValue] ?? 0)\n"
        }
        text += """
            # HELP har_worker_photo_bytes_sent_total Photo bytes sent to the platform, retries included.
            # TYPE har_worker_photo_bytes_sent_total counter
            har_worker_photo_bytes_sent_total \(snapshot.photoBytesSent)
            # HELP har_worker_photo_bytes_stored_total Photo bytes the platform acknowledged.
            # TYPE har_worker_photo_bytes_stored_total counter
            har_worker_photo_bytes_stored_total \(snapshot.photoBytesStored)
            # HELP har_worker_takeovers_total Reports taken over mid-transfer from a node whose lease lapsed.
            # TYPE har_worker_takeovers_total counter
            har_worker_takeovers_total \(snapshot.takeovers)
            # HELP har_worker_gate_handbacks_total Reports handed back because another node held their create gate.
            # TYPE har_worker_gate_handbacks_total counter
            har_worker_gate_handbacks_total \(snapshot.handbacks)

            """
        return text
    }
}

/// How a platform call of the worker failed, as counted and as it decides what happens next.
enum WorkerFailureKind: String, CaseIterable, Sendable {
    case retryLater = "retry_later"
    case outcomeUnknown = "outcome_unknown"
    case sessionExpired = "session_expired"
    case rejected
    case notFound = "not_found"
    case store
    /// The node's lease on the report was lost (taken over by another node): nothing more was done.
    case leaseLost = "lease_lost"
}
