import FoundationEssentials
import HTTPServer
import PlatformClient

/// A refusal of the local platform: a status and the contract's `{"error", "message"}` body.
public struct Refusal: Error, Sendable, Equatable {
    public var status: Int
    public var error: String
    public var message: String

    public init(_ status: Int, _ error: String, _ message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    public var response: Response {
        struct Body: Encodable {
            var error: String
            var message: String
        }
        let bytes = (try? LocalPlatform.encode(Body(error: error, message: message))) ?? Array("{}".utf8)
        return Response.json(bytes, status: status)
    }

    static func missingHeader(_ name: String) -> Refusal {
        Refusal(400, "MissingHeaderException", "missing required header \(name)")
    }
    static func invalidArgument(_ message: String) -> Refusal { Refusal(400, "InvalidArgumentException", message) }
    static let passwordTooShort = Refusal(
        400, "InvalidArgumentException", "field password must have at least 8 characters for a new account")
    static let unknownKey = Refusal(401, "UndefinedObjectException", "unknown consumer key")
    static let badSignature = Refusal(401, "InvalidSignatureException", "the signature does not match")
    static let wrongPassword = Refusal(401, "AuthenticationFailureException", "wrong e-mail address or password")
    static let expiredSession = Refusal(401, "ExpiredSessionException", "the session is unknown or has expired")
    static let notOwner = Refusal(403, "IllegalAccessException", "the report belongs to another account")
    static let noSuchReport = Refusal(404, "UndefinedObjectException", "no such report")
    static let noSuchEndpoint = Refusal(404, "UndefinedObjectException", "no such endpoint")
    static let methodNotAllowed = Refusal(405, "MethodNotAllowedException", "method not allowed")
    static let idempotencyConflict = Refusal(
        409, "ConflictException",
        "the Idempotency-Key was already used with another request body")
    static func tooLarge(limit: Int) -> Refusal {
        Refusal(413, "PayloadTooLargeException", "the photo is larger than \(limit) bytes")
    }
    static func internalError(_ message: String) -> Refusal { Refusal(500, "InternalErrorException", message) }
}
