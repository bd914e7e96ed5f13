import Basics
import PlatformClient

/// The one way screens call the platform on a user's behalf.
extension Web {
    /// Runs `call` with the signed-in user's platform session. When that session is missing, past its
    /// expiration_time, or the platform answers `sessionExpired`, the user's web sessions end (queued
    /// reports are kept: they wait for the next sign-in) and `SignedOut` is thrown, which the route
    /// wrappers turn into a redirect to /signin with a notice. Other `PlatformError`s are rethrown:
    /// show them with `message(for:context:)`.
    func withPlatform<T: Sendable>(
        _ context: WebContext, _ call: @escaping @Sendable (PlatformClient, PlatformSession) async throws -> T
    ) async throws -> T {
        let user = try context.requireUser()
        guard let session = user.platformSession(now: WallClock.now()) else {
            try endPlatformSession(of: user)
            throw SignedOut()
        }
        do {
            let platform = platform
            return try await withinDeadline(platformWait) { try await call(platform, session) }
        } catch PlatformError.sessionExpired {
            try endPlatformSession(of: user)
            throw SignedOut()
        }
    }

    private func endPlatformSession(of user: WebUser) throws {
        try sessions.endPlatformSession(userID: user.id)
        log.info("platform session of user \(user.id) ended; the user must sign in again")
    }

    /// Words for the user, in their language, for a platform failure: never a status dump or a JSON body.
    func message(for error: any Error, context: WebContext) -> String {
        let messages = context.messages
        guard let error = error as? PlatformError else { return messages["errors.platform.failed"] }
        switch error {
        case .authenticationFailed: return messages["errors.platform.wrongPassword"]
        case .retryLater(_, let reason) where !reason.hasPrefix("HTTP "),
            .outcomeUnknown(let reason) where !reason.hasPrefix("HTTP "):
            // No HTTP answer at all: refused, unresolved, timed out, cut off.
            return messages["errors.platform.unreachable"]
        case .retryLater, .outcomeUnknown: return messages["errors.platform.unavailable"]
        case .sessionExpired: return messages["signin.notice.expired"]
        case .forbidden: return messages["errors.platform.forbidden"]
        case .notFound: return messages["errors.platform.notFound"]
        case .rejected(_, _, let message) where !message.isEmpty:
            // The platform's own words (contract: needs-attention errors carry a message for people).
            return messages.format("errors.platform.rejected", ["message": String(message.prefix(300))])
        default: return messages["errors.platform.failed"]
        }
    }
}
