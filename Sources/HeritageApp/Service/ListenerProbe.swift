import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Asks the server's own listener for `/healthz`, as a client would, for the watchdog: the answer
/// proves that a connection is accepted, that an HTTP thread takes the request, and that the store
/// answers (`Health`). Over TLS, which this probe does not speak, it proves the connection only, and
/// the caller asks the store itself.
struct ListenerProbe: Sendable {
    let host: String
    let port: Int
    let speaksTLS: Bool
    var timeoutSeconds = 5

    /// Whether the listener answered (`200` for plain HTTP; an accepted connection over TLS).
    func answers() -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(Self.address(dialling: host), String(port), &hints, &found) == 0, let first = found else {
            return false
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { return false }
        if speaksTLS { return true }

        let request = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard
            request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.count
        else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        var received = 0
        while received < 12 {
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress.map { $0 + received }, $0.count - received, 0)
            }
            guard count > 0 else { return false }
            received += count
        }
        return String(decoding: buffer[0..<12], as: UTF8.self).hasSuffix(" 200")
    }

    /// A wildcard address is not one to dial: its loopback of the same family is.
    static func address(dialling host: String) -> String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::", "[::]": "::1"
        default: host
        }
    }
}
