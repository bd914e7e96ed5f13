import Dispatch
import Synchronization

/// The background loop of the mail worker and of the digests: a pass, then a wait until woken or
/// `interval` seconds have passed, until stopped. Started once; `stop` waits for the pass in flight.
final class PollingLoop: Sendable {
    private let signal = WakeSignal()
    private let stopping = StopFlag()
    private let started = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Set by `stop`: a pass over several items checks it between them.
    var isStopping: Bool { stopping.isSet }

    /// Runs `first` once, then `pass` every `interval` seconds or when woken, on a task of its own;
    /// calls after the first do nothing.
    func start(
        interval: Double, first: @escaping @Sendable () async -> Void = {},
        pass: @escaping @Sendable () async -> Void
    ) {
        let isFirst = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        guard isFirst else { return }
        Task.detached { [self] in
            await first()
            while !stopping.isSet {
                await pass()
                await signal.wait(seconds: interval)
            }
            finished.signal()
        }
    }

    /// Cuts the wait short: the next pass runs now.
    func wake() { signal.signal() }

    /// Ends the loop after the pass in flight, waiting for it at most `timeout` seconds.
    func stop(timeout: Double) {
        stopping.set()
        guard started.withLock({ $0 }) else { return }
        signal.signal()
        _ = finished.wait(timeout: .now() + timeout)
    }
}
