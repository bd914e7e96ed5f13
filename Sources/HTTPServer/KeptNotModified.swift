// 304 answers kept as finished MHD responses, under the exact header fields they carry.

/// A 304 is its header fields and nothing else: the same fields make the same bytes. A handler's 304
/// made of validator fields only (`ETag`, `Cache-Control`, `Vary`, `Expires`, `Content-Location`, the
/// fields RFC 9110 §15.4.5 has a 304 repeat), with no cookie and nothing unsafe, is sent from an MHD
/// response kept under those fields, built (the security headers added one by one, ~10,000
/// instructions per 304 with its creation and freeing) the first time they are seen. What is kept
/// holds no body and nothing of a page: a tag that stops matching is simply never asked for again.
/// At most `limit` kept, all dropped when full (each is one small MHD response).
final class KeptNotModified: Sendable {
    /// Under the ETag's value (every 304 a handler makes carries one), with the fields to compare.
    /// Read by every 304 on every MHD thread at once, written only for a tag not seen before.
    private let kept = ReadMostly<[String: Entry]>([:])
    let limit: Int

    private struct Entry: @unchecked Sendable {  // the fields' Strings are immutable values
        let fields: [(name: String, value: String)]
        let response: ReusableResponse
    }

    init(limit: Int = 512) { self.limit = limit }

    /// The kept response for this 304, made (empty, to be built on first send) if new; nil when it
    /// is not one to keep.
    func reusable(for response: Response) -> ReusableResponse? {
        guard response.status == 304, response.reusable == nil, !response.closesConnectionWithoutAnswer,
            case .bytes(let body) = response.body, body.isEmpty
        else { return nil }
        // Found by its ETag and compared byte for byte; checked (`tag(of:)`) only when first kept:
        // checking every 304's names and values was a third of what the lookup cost.
        guard let tag = response.headers["ETag"] else { return nil }
        let fields = response.headers.fields
        if let found = kept.read({ kept in kept[tag].flatMap { Self.same($0.fields, fields) ? $0.response : nil } }) {
            return found
        }
        guard Self.tag(of: fields) == tag else { return nil }
        return kept.write { kept in
            if let found = kept[tag], Self.same(found.fields, fields) { return found.response }
            if kept.count >= limit { kept.removeAll() }
            let made = ReusableResponse()
            kept[tag] = Entry(fields: fields, response: made)
            return made
        }
    }

    var count: Int { kept.read { $0.count } }

    /// The ETag's value, or nil if there is none or any field is not a validator field or not safe
    /// to send as it is (an unsafe one would be dropped from what is sent). Names are told by their
    /// length first: comparing each against the five names cost more than the rest of the lookup.
    static func tag(of fields: [(name: String, value: String)]) -> String? {
        var tag: String?
        for (name, value) in fields {
            switch name.utf8.count {
            case 4 where Headers.namesEqual(name, "ETag"): tag = tag ?? value
            case 4 where Headers.namesEqual(name, "Vary"): break
            case 7 where Headers.namesEqual(name, "Expires"): break
            case 13 where Headers.namesEqual(name, "Cache-Control"): break
            case 16 where Headers.namesEqual(name, "Content-Location"): break
            default: return nil
            }
            guard Decoding.isSafeHeaderValue(value) else { return nil }
        }
        return tag
    }

    /// The same fields in the same order, byte for byte.
    static func same(_ left: [(name: String, value: String)], _ right: [(name: String, value: String)]) -> Bool {
        guard left.count == right.count else { return false }
        for index in left.indices {
            guard Request.sameBytes(left[index].name, right[index].name),
                Request.sameBytes(left[index].value, right[index].value)
            else { return false }
        }
        return true
    }
}
