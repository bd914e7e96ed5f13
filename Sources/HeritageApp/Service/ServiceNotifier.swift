// Service: what `har serve` tells the service manager (systemd's notification protocol) and the
// watchdog that keeps telling it the server still answers.
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's readiness protocol (sd_notify(3)) written directly: one datagram of `KEY=value` lines to
/// the unix socket named by `NOTIFY_SOCKET`. No libsystemd, so the binary runs the same without systemd,
/// where `NOTIFY_SOCKET` is unset and nothing is sent.
struct ServiceNotifier: Sendable {
    /// The socket's path, or an abstract socket's name after a leading `@`.
    let socketPath: String

    /// The notifier of this process's service manager; nil when none listens.
    init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], path.hasPrefix("/") || path.hasPrefix("@") else {
            return nil
        }
        socketPath = path
    }

    /// Sends `state` (`READY=1`, `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`); whether it was sent whole.
    /// A service manager that went away is no reason to stop serving, so failures are only returned.
    @discardableResult
    func send(_ state: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        let isAbstract = path.first == UInt8(ascii: "@")
        if isAbstract { path[0] = 0 }
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        // A path counts its terminating zero; an abstract name is exactly its bytes.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (isAbstract ? 0 : 1))

        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array(state.utf8)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent == message.count
    }
}
