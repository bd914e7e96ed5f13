import Foundation
import Testing

@testable import HeritageApp
@testable import PlatformClient

/// OPS-06: the watchdog pings only while its check passes, so that systemd restarts a server that no
/// longer answers; and the clock's verdict in `har doctor` (OPS-07).
@Suite struct WatchdogTests {
    @Test func pingsWhileTheCheckPassesAndStopsWhenItFails() async throws {
        let folder = TemporaryDirectory(prefix: "har-watchdog")
        let socket = try NotifySocket(path: folder.file("notify"))
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": socket.path]))
        let healthy = Flag(true)
        let failedChecks = Flag(false)
        let watchdog = try #require(
            Watchdog(environment: ["WATCHDOG_USEC": "100000"], notifier: notifier) {
                let answer = healthy.value
                if !answer { failedChecks.value = true }
                return answer
            })
        watchdog.start()
        _ = try await socket.waitFor("WATCHDOG=1", timeout: 5)
        healthy.value = false
        // A ping decided before the flip may still be sent, but the loop sends it before its next
        // check: once a check has failed, every earlier ping is in the socket and drained.
        try await waitUntil("a check failed", timeout: 10, interval: 0.01) { failedChecks.value }
        socket.drain()
        await #expect(throws: TestFailure.self) { try await socket.waitFor("WATCHDOG=1", timeout: 0.5) }
        watchdog.stop()
    }

    @Test func noWatchdogUnlessAskedForThisProcess() throws {
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/run/x"]))
        #expect(Watchdog(environment: [:], notifier: notifier) { true } == nil)
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "0"], notifier: notifier) { true } == nil)
        #expect(
            Watchdog(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"], notifier: notifier) { true }
                == nil)
        #expect(ServiceNotifier(environment: [:]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "relative"]) == nil)
    }

    @Test func theProbeFailsOnAPortWhereNothingListens() {
        #expect(!ListenerProbe(host: "127.0.0.1", port: 9, speaksTLS: false, timeoutSeconds: 1).answers())
        #expect(ListenerProbe.address(dialling: "0.0.0.0") == "127.0.0.1")
        #expect(ListenerProbe.address(dialling: "::") == "::1")
    }

    @Test func clockDifferencesAreJudgedBySize() {
        #expect(PlatformCheck.clock(1000, now: 1005).level == .ok)
        #expect(PlatformCheck.clock(1000, now: 1100).level == .warn)
        #expect(PlatformCheck.clock(1000, now: 400).level == .fail)
        #expect(PlatformCheck.clock(nil, now: 1000).level == .warn)
        #expect(PlatformClient.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }
}

/// A Boolean shared with a watchdog's check.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool
    init(_ value: Bool) { stored = value }
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
