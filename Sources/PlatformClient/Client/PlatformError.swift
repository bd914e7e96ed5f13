/// Every way a platform call can fail, already sorted into what the caller should do about it.
public enum PlatformError: Error, Sendable, Equatable {
    /// Nothing was done, or nothing that matters: try again later (connection refused, name not
    /// resolved, 408, 429, 503, other 5xx). `retryAfter` is the server's Retry-After in seconds.
    case retryLater(retryAfter: Double?, reason: String)
    /// Try again later, but the request may have been processed: a timeout or broken connection after
    /// it was sent, or a 500/502/504. Before re-sending a create, reconcile (list and adopt).
    case outcomeUnknown(reason: String)
    /// The platform session expired or is unknown: sign in again.
    case sessionExpired
    /// Wrong e-mail or password.
    case authenticationFailed(message: String)
    /// The report belongs to someone else.
    case forbidden(message: String)
    /// No such report (or deleted).
    case notFound(message: String)
    /// The Idempotency-Key was used before for a different body.
    case conflict(message: String)
    /// The photo is over the platform's size limit.
    case payloadTooLarge(message: String)
    /// Any other 4xx: needs attention, not a blind retry. Carries the platform's own message.
    case rejected(status: Int, error: String, message: String)
    /// A 2xx whose body could not be understood.
    case invalidResponse(reason: String)

    /// Retrying later, unchanged, is the right move.
    public var shouldRetryLater: Bool {
        switch self {
        case .retryLater, .outcomeUnknown: true
        default: false
        }
    }

    /// The request may have had its effect although no success was seen (the upload worker reconciles
    /// before creating again). An unparseable 2xx was processed too.
    public var mayHaveBeenProcessed: Bool {
        switch self {
        case .outcomeUnknown, .invalidResponse: true
        default: false
        }
    }

    /// The HTTP status the platform answered, when the failure was an answer (nil: no answer, or a
    /// 2xx not understood). A retry's status is read from the reason ErrorMapping.swift gives ("HTTP 503 …").
    public var httpStatus: Int? {
        switch self {
        case .sessionExpired, .authenticationFailed: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .payloadTooLarge: 413
        case .rejected(let status, _, _): status
        case .retryLater(_, let reason), .outcomeUnknown(let reason):
            reason.hasPrefix("HTTP ") ? Int(reason.dropFirst(5).prefix(3)) : nil
        case .invalidResponse: nil
        }
    }

    /// The Retry-After the server asked for, if any.
    public var retryAfter: Double? {
        if case .retryLater(let seconds, _) = self { return seconds }
        return nil
    }
}

extension PlatformError: CustomStringConvertible {
    /// Safe to log and show: built only from statuses and the platform's own messages.
    public var description: String {
        switch self {
        case .retryLater(let after, let reason):
            "retry later (\(reason))" + (after.map { ", after \($0)s" } ?? "")
        case .outcomeUnknown(let reason): "outcome unknown (\(reason))"
        case .sessionExpired: "platform session expired"
        case .authenticationFailed(let message): "authentication failed: \(message)"
        case .forbidden(let message): "forbidden: \(message)"
        case .notFound(let message): "not found: \(message)"
        case .conflict(let message): "conflict: \(message)"
        case .payloadTooLarge(let message): "payload too large: \(message)"
        case .rejected(let status, let error, let message): "rejected \(status) \(error): \(message)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        }
    }
}
