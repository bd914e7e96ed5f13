import FoundationEssentials
import HTTPServer
import PlatformClient

/// Who is calling, once the headers, the signature and the session have been checked.
struct Caller {
    var appKey: String
    var session: SessionRecord?

    /// The scope of Idempotency-Keys: one client app and one account, so that a retry made after the
    /// user signed in again (a new session) is still recognised as the same request.
    var idempotencyScope: String { appKey + "|" + (session?.accountID ?? "") }
}

extension LocalPlatform {
    enum BodyKind {
        case none, json, multipart
    }

    /// Checks a request in the contract's order: headers present, consumer key known, signature,
    /// content type, then the session. Each failure is the contract's error.
    func authenticate(_ request: Request, body: BodyKind, needsSession: Bool) throws(Refusal) -> Caller {
        var required = ["X-API-Key", "X-API-Sig"]
        if needsSession { required.append("X-Authentication") }
        if body != .none { required.append("Content-Type") }
        for name in required where (request.headers[name] ?? "").isEmpty { throw .missingHeader(name) }
        let key = request.headers["X-API-Key"] ?? ""
        guard let secret = configuration.apps[key] else { throw .unknownKey }
        let expected = try signature(of: request, secret: secret)
        guard Signature.matches(expected, request.headers["X-API-Sig"] ?? "") else { throw .badSignature }
        try checkContentType(request, body: body)
        guard needsSession else { return Caller(appKey: key, session: nil) }
        let sessionID = request.headers["X-Authentication"] ?? ""
        let session = try stored { try store.session(id: sessionID) }
        guard let session, session.appKey == key, session.expirationTime > now() else { throw .expiredSession }
        return Caller(appKey: key, session: session)
    }

    /// The signature the request should carry: over the path as it came on the request line and the
    /// body exactly as received (the spooled raw body for multipart, which the server parsed).
    private func signature(of request: Request, secret: String) throws(Refusal) -> String {
        let stream = SignatureStream(secret: secret)
        stream.update(Signature.signedPath(request.rawPath).utf8)
        if let raw = request.rawBodyPath {
            do {
                try stream.update(fileAt: raw)
            } catch {
                throw .internalError("cannot read the request body")
            }
        } else {
            if !request.files.isEmpty || !request.formFields.isEmpty {
                // A parsed form without its raw bytes cannot be verified: never accept it unchecked.
                throw .invalidArgument("the raw request body is unavailable for signature checking")
            }
            stream.update(request.body)
        }
        return stream.finalize()
    }

    private func checkContentType(_ request: Request, body: BodyKind) throws(Refusal) {
        let value = (request.headers["Content-Type"] ?? "").lowercased()
        let mediaType = value.split(separator: ";").first.map { $0.filter { $0 != " " } } ?? ""
        switch body {
        case .none: return
        case .json:
            guard mediaType == "application/json" else {
                throw .invalidArgument("Content-Type must be application/json")
            }
        case .multipart:
            guard mediaType == "multipart/form-data", value.contains("boundary=") else {
                throw .invalidArgument("Content-Type must be multipart/form-data with a boundary")
            }
        }
    }

    /// Replays the first answer for a repeated Idempotency-Key with the same fingerprint, refuses it
    /// with another (409), else runs `body` and remembers a successful answer. Under the write lock, so
    /// two concurrent retries cannot both create.
    func idempotent(
        _ request: Request, caller: Caller, fingerprint: String,
        _ body: () throws(Refusal) -> Response
    ) throws(Refusal) -> Response {
        guard !configuration.faults.ignoreIdempotency, let key = request.headers["Idempotency-Key"], !key.isEmpty
        else { return try body() }
        return try writeLock.withLock { _ throws(Refusal) -> Response in
            let scope = caller.idempotencyScope
            if let first = try stored({ try store.idempotentAnswer(scope: scope, key: key) }) {
                guard first.fingerprint == fingerprint else { throw .idempotencyConflict }
                return Response.json(first.body, status: first.status)
            }
            let response = try body()
            if (200...299).contains(response.status), case .bytes(let bytes) = response.body {
                let answer = IdempotentAnswer(
                    scope: scope, key: key, fingerprint: fingerprint,
                    status: response.status, body: bytes)
                try stored { try store.saveIdempotentAnswer(answer) }
            }
            return response
        }
    }
}
