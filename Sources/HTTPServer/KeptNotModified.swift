// 304 answers kept as finished MHD responses, under the exact header fields they carry.
import Synchronization

/// A 304 is its header fields and nothing else: the same fields make the same bytes. A handler's 304
/// made of validator fields only (`ETag`, `Cache-Control`, `Vary`, `Expires`, `Content-Location`, the
/// fields RFC 9110 §15.4.5 has a 304 repeat), with no cookie and nothing unsafe, is sent from an MHD
/// response kept under those fields, built (the security headers added one by one, ~10,000
/// instructions per 304 with its creation and freeing) the first time they are seen. What is kept
/// holds no body and nothing of a page: a tag that stops matching is simply never asked for again.
/// At most `limit` kept, all dropped when full (each is one small MHD response).
final class KeptNotModified: Sendable {
    private let kept = Mutex<[String: ReusableResponse]>([:])
    let limit: Int

    init(limit: Int = 512) { self.limit = limit }

    /// The kept response for this 304, made (empty, to be built on first send) if new; nil when it
    /// is not one to keep.
    func reusable(for response: Response) -> ReusableResponse? {
        guard response.status == 304, response.reusable == nil, !response.closesConnectionWithoutAnswer,
            case .bytes(let body) = response.body, body.isEmpty, let key = Self.key(response.headers)
        else { return nil }
        return kept.withLock { kept in
            if let found = kept[key] { return found }
            if kept.count >= limit { kept.removeAll() }
            let made = ReusableResponse()
            kept[key] = made
            return made
        }
    }

    var count: Int { kept.withLock { $0.count } }

    /// The fields as one text (name, NUL, value, NUL each: neither holds a NUL), or nil if any is not
    /// a validator field or not safe to send as it is (an unsafe one would be dropped from what is
    /// sent, not from the key).
    static func key(_ headers: Headers) -> String? {
        var key = ""
        for (name, value) in headers {
            guard ConditionalFile.notModifiedFields.contains(where: { Headers.namesEqual($0, name) }),
                Decoding.isSafeHeaderValue(value)
            else { return nil }
            key += name
            key += "\0"
            key += value
            key += "\0"
        }
        return key
    }
}
