import FoundationEssentials

/// The `{"error", "message"}` body of a platform error answer.
struct PlatformErrorBody: Decodable, Sendable {
    var error: String?
    var message: String?
}

extension PlatformError {
    /// Maps a non-2xx answer to an error, per the contract's table. Pure, so it is unit-tested directly.
    public static func from(status: Int, body: [UInt8], headers: [(name: String, value: String)]) -> PlatformError {
        let parsed = try? JSONDecoder().decode(PlatformErrorBody.self, from: Data(body))
        let name = parsed?.error ?? ""
        let message = parsed?.message ?? "HTTP \(status)"
        switch status {
        case 401:
            if name == "ExpiredSessionException" { return .sessionExpired }
            if name == "AuthenticationFailureException" { return .authenticationFailed(message: message) }
            // An unknown key or a bad signature is a configuration problem: needs attention.
            return .rejected(status: status, error: name, message: message)
        case 403: return .forbidden(message: message)
        case 404: return .notFound(message: message)
        case 409: return .conflict(message: message)
        case 413: return .payloadTooLarge(message: message)
        case 408, 429, 503:
            return .retryLater(retryAfter: retryAfterSeconds(headers), reason: "HTTP \(status) \(name)")
        case 500, 502, 504:
            // A gateway timeout or an internal error may come after the work was done.
            return .outcomeUnknown(reason: "HTTP \(status) \(name)")
        case 500...599:
            return .retryLater(retryAfter: retryAfterSeconds(headers), reason: "HTTP \(status) \(name)")
        case 400...499: return .rejected(status: status, error: name, message: message)
        default: return .invalidResponse(reason: "unexpected HTTP status \(status)")
        }
    }

    /// Retry-After in seconds (the HTTP-date form is not used by the platform and is ignored).
    static func retryAfterSeconds(_ headers: [(name: String, value: String)]) -> Double? {
        guard let value = headers.first(where: { $0.name.lowercased() == "retry-after" })?.value else { return nil }
        guard let seconds = Double(value.filter { $0 != " " && $0 != "\t" }), seconds >= 0, seconds.isFinite
        else { return nil }
        return seconds
    }
}
