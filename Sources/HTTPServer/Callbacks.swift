// The C callbacks MHD calls. Free functions with C signatures (closures in top-level code would be
// main-actor isolated and trap on MHD threads); each recovers its Swift object through Unmanaged.
// The server itself is retained for the daemon's lifetime by `start()` and released by `stop()`.
import CMicroHTTPD
import Glibc

/// MHD_OPTION.URI_LOG_CALLBACK: the first sight of a request, with its URI still raw. The state
/// returned here becomes `*con_cls`; this is its one passRetained.
func harURILog(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls else { return nil }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let bytes = uri.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
    let state = RequestState(rawURI: bytes)
    server.requestStarted()
    return Unmanaged.passRetained(state).toOpaque()
}

/// MHD_AccessHandlerCallback. Called when the headers are in, then per body chunk, then once with no
/// data when the body is complete (and again after each resumption). Answers are queued only on a
/// later call than the first, so MHD keeps the connection alive.
func harAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let conCls, let uploadDataSize else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let state: RequestState
    if let existing = conCls.pointee {
        state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    } else {
        // Only if MHD skipped the URI-log callback; `url` is then the best raw URI there is.
        let bytes = url.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
        state = RequestState(rawURI: bytes)
        server.requestStarted()
        conCls.pointee = Unmanaged.passRetained(state).toOpaque()
    }
    if !state.headersSeen {
        state.headersSeen = true
        return server.begin(
            state, connection: connection, method: method.map { String(cString: $0) } ?? "",
            isHTTP10: version.map { strcmp($0, "HTTP/1.0") == 0 } ?? false)
    }
    if uploadDataSize.pointee > 0 {
        let data = UnsafeRawBufferPointer(start: uploadData, count: uploadData == nil ? 0 : uploadDataSize.pointee)
        uploadDataSize.pointee = 0
        return server.receive(state, connection: connection, data: data)
    }
    return server.finish(state, connection: connection)
}

/// MHD_OPTION.NOTIFY_COMPLETED: the request is over (answered, or the client left). Releases the
/// state exactly once and clears `*con_cls` so nothing can release it again.
func harRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    conCls.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
    if server.slowClients.isEnabled, let connection {
        server.slowClients.set(connection, .nextHeaders(since: monotonicSeconds()))
    }
    server.requestCompleted(state)
}

/// MHD_OPTION.EXTERNAL_LOGGER: MHD's own error messages, formatted and handed to our error log.
func harMHDLog(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    server.logMHD(message)
}

/// MHD_KeyValueIteratorN collecting request headers into a HeaderCollector, checking each field line's
/// bytes as MHD kept them on the way (RequestFraming.checkField).
func harCollectHeader(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ keySize: Int,
    _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return MHD_Result.YES }
    let collector = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
    guard collector.headers.count < 200 else { return MHD_Result.NO }
    let name = UnsafeRawBufferPointer(start: key, count: keySize)
    let text = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
    if collector.refusal == nil { collector.refusal = RequestFraming.checkField(name: name, value: text) }
    collector.headers.addReceived(name: name, value: text)
    return MHD_Result.YES
}

final class HeaderCollector {
    /// Room for a browser's usual fields made once: grown from empty, the arrays were reallocated at
    /// 1, 2, 4, 8 and 16 fields.
    /// Used by one thread, inside one call: no run-time exclusivity checks (two per field).
    @exclusivity(unchecked) var headers = Headers(capacity: 16)
    /// The first field line that breaks RFC 9112's rules.
    @exclusivity(unchecked) var refusal: RequestRefusal?
}

/// The peer address of a connection as text.
func remoteAddress(of connection: OpaquePointer) -> String {
    guard let address = har_mhd_client_address(connection) else { return "" }
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        // Dotted quad by hand: inet_ntop formats through sprintf, ~3.5k instructions per request
        // in callgrind, for four small numbers.
        let value = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
            UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(15)
        for shift in stride(from: 24, through: 0, by: -8) {
            let part = UInt8(truncatingIfNeeded: value >> UInt32(shift))
            if part >= 100 { bytes.append(UInt8(ascii: "0") + part / 100) }
            if part >= 10 { bytes.append(UInt8(ascii: "0") + part / 10 % 10) }
            bytes.append(UInt8(ascii: "0") + part % 10)
            if shift > 0 { bytes.append(UInt8(ascii: ".")) }
        }
        return String(decoding: bytes, as: UTF8.self)
    case AF_INET6:
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
            var addr = ipv6.pointee.sin6_addr
            _ = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    default:
        return ""
    }
}
