import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// OPS-06: `har serve` under systemd's `Type=notify` and `WatchdogSec=`: the datagrams it sends to the
/// socket in `NOTIFY_SOCKET`, read here as systemd would read them.
@Suite struct ServiceNotifyTests {
    @Test func readyThenWatchdogThenStoppingOnSIGTERM() async throws {
        let folder = TemporaryDirectory(prefix: "har-notify")
        let socket = try NotifySocket(path: folder.file("notify"))
        // 0.2 s: pings every 0.1 s, each after /healthz answered through the server's own listener.
        let server = try await ServeProcess(environment: [
            "NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000", "HAR_STATIC_WARM": "false",
        ])
        let ready = try await socket.waitFor("READY=1")
        #expect(ready.contains("STATUS=serving on port \(server.port)"))
        _ = try await socket.waitFor("WATCHDOG=1")
        let stopped = await server.stop()
        #expect(stopped.status == 0)
        _ = try await socket.waitFor("STOPPING=1")
    }

    /// The start-up is one place, `Application.start`: the application built in-process (as tests build
    /// it, with a service manager's environment given) says it is ready, pings the watchdog, and says it
    /// stops from `stop`, with no step of `har serve`'s own.
    @Test func applicationStartSaysReadyAndStopSaysStopping() async throws {
        let folder = TemporaryDirectory(prefix: "har-notify")
        let socket = try NotifySocket(path: folder.file("notify"))
        let server = try RunningServer(serviceEnvironment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"])
        let ready = try await socket.waitFor("READY=1")
        #expect(ready.contains("STATUS=serving on port \(server.port)"))
        _ = try await socket.waitFor("WATCHDOG=1")
        await server.stop()
        _ = try await socket.waitFor("STOPPING=1")
    }

    @Test func nothingIsSentWithoutNotifySocketAndStartIsUnchanged() async throws {
        let server = try await ServeProcess()
        #expect(try await curl(server.baseURL + "/healthz").status == 200)
        #expect(await server.stop().status == 0)
    }
}

/// A unix datagram socket bound to a path, as systemd's notification socket is.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw TestFailure("bind \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The first datagram with a line `line`, within `timeout` seconds (earlier ones are skipped).
    func waitFor(_ line: String, timeout: Double = 30) async throws -> String {
        let descriptor = descriptor
        let found = try await blocking { () -> String? in
            let deadline = Date().addingTimeInterval(timeout)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { continue }
                let message = String(decoding: buffer[0..<count], as: UTF8.self)
                if message.split(separator: "\n").contains(Substring(line)) { return message }
            }
            return nil
        }
        guard let found else { throw TestFailure("no \(line) on \(path) within \(timeout) s") }
        return found
    }

    /// Discards the datagrams already queued (sent before now).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
    }

    deinit {
        close(descriptor)
        unlink(path)
    }
}
