import Testing

@testable import PlatformClient

@Suite struct ErrorMappingTests {
    func map(_ status: Int, _ error: String = "", _ headers: [(name: String, value: String)] = []) -> PlatformError {
        let body = Array(#"{"error":"\#(error)","message":"the message"}"#.utf8)
        return PlatformError.from(status: status, body: body, headers: headers)
    }

    @Test func contractTable() {
        #expect(map(401, "ExpiredSessionException") == .sessionExpired)
        #expect(map(401, "AuthenticationFailureException") == .authenticationFailed(message: "the message"))
        #expect(
            map(401, "InvalidSignatureException")
                == .rejected(status: 401, error: "InvalidSignatureException", message: "the message"))
        #expect(map(403, "IllegalAccessException") == .forbidden(message: "the message"))
        #expect(map(404, "UndefinedObjectException") == .notFound(message: "the message"))
        #expect(map(409, "ConflictException") == .conflict(message: "the message"))
        #expect(map(413, "PayloadTooLargeException") == .payloadTooLarge(message: "the message"))
        #expect(
            map(400, "InvalidArgumentException")
                == .rejected(status: 400, error: "InvalidArgumentException", message: "the message"))
    }

    @Test func retryLaterHonoursRetryAfter() {
        #expect(map(429, "TooMany", [("Retry-After", "7")]) == .retryLater(retryAfter: 7, reason: "HTTP 429 TooMany"))
        #expect(map(503, "", [("retry-after", "bogus")]).retryAfter == nil)
        #expect(map(408).shouldRetryLater)
        #expect(!map(408).mayHaveBeenProcessed)
        #expect(map(500).shouldRetryLater && map(500).mayHaveBeenProcessed)
        #expect(map(504).mayHaveBeenProcessed)
        #expect(map(507).shouldRetryLater && !map(507).mayHaveBeenProcessed)
        #expect(!map(400).shouldRetryLater)
    }

    @Test func unparseableErrorBodyStillMaps() {
        let error = PlatformError.from(status: 400, body: Array("<html>".utf8), headers: [])
        #expect(error == .rejected(status: 400, error: "", message: "HTTP 400"))
    }

    @Test func transportFailures() {
        #expect(
            PlatformError.from(TransferFailure(kind: .notSent, message: "refused"))
                == .retryLater(retryAfter: nil, reason: "refused"))
        let lost = PlatformError.from(TransferFailure(kind: .noAnswerAfterSending, message: "timeout"))
        #expect(lost.shouldRetryLater && lost.mayHaveBeenProcessed)
    }
}

@Suite struct PathSegmentTests {
    @Test func reportIDsAreOneEscapedPathSegment() {
        #expect(PlatformClient.pathSegment("5215f46e4e1911ea8e0d0008a20c190f") == "5215f46e4e1911ea8e0d0008a20c190f")
        #expect(PlatformClient.pathSegment("..") == "%2E%2E")
        #expect(PlatformClient.pathSegment("a/b?c#d") == "a%2Fb%3Fc%23d")
    }
}
