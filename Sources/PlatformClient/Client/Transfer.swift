/// One HTTP exchange as the transfer threads see it: no platform semantics, just bytes.
struct TransferRequest: Sendable {
    enum Body: Sendable {
        case none
        case bytes([UInt8])
        case multipart(MultipartBody)
    }

    var method: String
    var url: String
    var headers: [String]
    var body: Body
}

struct TransferResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// A transfer that got no HTTP answer.
struct TransferFailure: Error, Sendable {
    enum Kind: Sendable {
        /// Connection refused, name not resolved, TLS failure, timeout before the request went out.
        case notSent
        /// The whole request may have reached the server, but no answer came back.
        case noAnswerAfterSending
        /// The answer was larger than `maxResponseBytes`.
        case responseTooLarge
        /// The URL or a setting is wrong; retrying will not help.
        case misconfigured
        /// The photo file could not be read while sending.
        case bodyUnreadable
    }

    var kind: Kind
    var message: String
}

extension PlatformError {
    /// Maps a transfer that got no HTTP answer. Pure, so it is unit-tested directly.
    static func from(_ failure: TransferFailure) -> PlatformError {
        switch failure.kind {
        case .notSent: .retryLater(retryAfter: nil, reason: failure.message)
        case .noAnswerAfterSending: .outcomeUnknown(reason: failure.message)
        case .responseTooLarge: .invalidResponse(reason: failure.message)
        case .misconfigured: .rejected(status: 0, error: "ClientConfiguration", message: failure.message)
        case .bodyUnreadable: .rejected(status: 0, error: "PhotoUnreadable", message: failure.message)
        }
    }
}
