import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The one place that says where people reach this site, for the links that leave a page: mail's
/// (answer a question, unsubscribe) and the enrolment link `har kiosk create` prints. Pages themselves
/// link by path, and a kiosk's QR codes by the request's own `Host` (`Kiosks.origin`).
extension Configuration {
    /// `public_url` (without a trailing slash), else `listenerURL`.
    var publicBaseURL: String { publicURL.map(Self.withoutTrailingSlash) ?? listenerURL }

    /// The server's own address, made from `host`, `port` and TLS: right only when people reach the server
    /// at that address. A wildcard address (`0.0.0.0`, `::`) is written as the machine's host name.
    var listenerURL: String {
        let secure = tlsCert != nil
        var name = host
        if name == "0.0.0.0" || name == "::" || name.isEmpty {
            var buffer = [CChar](repeating: 0, count: 256)
            name =
                gethostname(&buffer, buffer.count) == 0
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                : "localhost"
        }
        if name.contains(":") { name = "[" + name + "]" }
        let defaultPort = secure ? 443 : 80
        return (secure ? "https://" : "http://") + name + (port == defaultPort ? "" : ":\(port)")
    }

    static func withoutTrailingSlash(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
