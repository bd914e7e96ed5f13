// PlatformClient: the client of the Heritage Observatory platform, standing alone. Signing (the request
// signature, SHA-256, PBKDF2 and random tokens from libcrypto), Models (what the contract sends and
// receives, shared with the local platform) and Client (libcurl transfers on threads of its own).
// It builds without an HTTP server or SQLite: Package.swift gives it Basics, CCurl and COpenSSL and
// nothing else, and that list is the check; never add HTTPServer or Storage to it.
import Basics
import FoundationEssentials

/// The only code that talks to the platform: signs, sends, parses, and maps every failure to a
/// `PlatformError`. Safe to call from many tasks at once; transfers run on the client's own threads.
public final class PlatformClient: Sendable {
    public let configuration: PlatformConfiguration
    private let threads: TransferThreads
    private let log: @Sendable (String) -> Void

    /// `log` gets one line per call (method, endpoint, status, duration); never a secret, password,
    /// session id or body.
    public init(configuration: PlatformConfiguration, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        guard
            let threads = TransferThreads(
                count: configuration.concurrentTransfers,
                capacity: configuration.maxQueuedTransfers)
        else { throw PlatformError.retryLater(retryAfter: nil, reason: "cannot start transfer threads") }
        self.configuration = configuration
        self.threads = threads
        self.log = log
    }

    deinit { threads.shutdown() }

    public func signIn(email: String, password: String) async throws -> PlatformSession {
        struct Credentials: Encodable {
            var emailAddress: String
            var password: String
            enum CodingKeys: String, CodingKey {
                case emailAddress = "email_address"
                case password
            }
        }
        let body = try Self.json(Credentials(emailAddress: email, password: password))
        let response = try await send("POST", "account/session", body: .bytes(body), session: nil)
        return try decode(PlatformSession.self, response)
    }

    public func listReports(session: PlatformSession) async throws -> [PlatformReport] {
        let response = try await send("GET", "har/report", body: .none, session: session)
        return try decode([PlatformReport].self, response)
    }

    public func createReport(_ report: NewReport, idempotencyKey: String, session: PlatformSession) async throws
        -> CreatedReport
    {
        // Serialised once: these exact bytes are signed and sent.
        let body = try report.jsonBytes()
        let response = try await send(
            "POST", "har/report", body: .bytes(body), session: session,
            idempotencyKey: idempotencyKey)
        return try decode(CreatedReport.self, response)
    }

    public func uploadPhoto(reportID: String, photo: PhotoUpload, idempotencyKey: String, session: PlatformSession)
        async throws -> UploadedPhoto
    {
        let multipart: MultipartBody
        do {
            multipart = try MultipartBody(
                photo: photo, boundary: MultipartBody.boundary(forIdempotencyKey: idempotencyKey))
        } catch {
            throw PlatformError.rejected(status: 0, error: "PhotoUnreadable", message: "\(error)")
        }
        let response = try await send(
            "POST", "har/report/\(Self.pathSegment(reportID))/photo",
            body: .multipart(multipart), session: session, idempotencyKey: idempotencyKey)
        return try decode(UploadedPhoto.self, response)
    }

    public func deleteReport(reportID: String, session: PlatformSession) async throws {
        _ = try await send("DELETE", "har/report/\(Self.pathSegment(reportID))", body: .none, session: session)
    }

    // MARK: - Sending

    private func send(
        _ method: String, _ path: String, body: TransferRequest.Body, session: PlatformSession?,
        idempotencyKey: String? = nil
    ) async throws -> TransferResponse {
        let signature: String
        var headers = ["Accept: application/json", "X-API-Key: \(configuration.consumerKey)"]
        switch body {
        case .none:
            signature = Signature.sign(path: path, body: [], secret: configuration.consumerSecret)
        case .bytes(let bytes):
            signature = Signature.sign(path: path, body: bytes, secret: configuration.consumerSecret)
            headers.append("Content-Type: application/json")
        case .multipart(let multipart):
            // Hashing 25 MB blocks for a while: do it on a transfer thread, not on the caller's.
            signature = try await onTransferThread { _ in
                try multipart.signature(path: path, secret: self.configuration.consumerSecret)
            }
            headers.append("Content-Type: \(multipart.contentType)")
        }
        headers.append("X-API-Sig: \(signature)")
        if let session { headers.append("X-Authentication: \(session.sessionID)") }
        if let idempotencyKey { headers.append("Idempotency-Key: \(idempotencyKey)") }

        let request = TransferRequest(method: method, url: configuration.url(for: path), headers: headers, body: body)
        let started = ContinuousClock.now
        let result = try await onTransferThread { easy in easy.perform(request, configuration: self.configuration) }
        let seconds = Self.seconds(ContinuousClock.now - started)
        switch result {
        case .failure(let failure):
            log("platform \(method) \(path) failed (\(failure.message)) in \(seconds)s")
            throw PlatformError.from(failure)
        case .success(let response):
            log("platform \(method) \(path) \(response.status) in \(seconds)s")
            guard (200...299).contains(response.status) else {
                throw PlatformError.from(status: response.status, body: response.body, headers: response.headers)
            }
            return response
        }
    }

    /// Runs blocking work on one of the client's threads and suspends the caller meanwhile.
    func onTransferThread<T: Sendable>(_ work: @escaping @Sendable (CurlEasy) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = threads.submit { easy in continuation.resume(with: Result { try work(easy) }) }
            if !accepted {
                continuation.resume(
                    throwing: PlatformError.retryLater(retryAfter: 1, reason: "too many platform calls queued"))
            }
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: TransferResponse) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw PlatformError.invalidResponse(reason: "cannot read \(T.self): \(error)")
        }
    }

    static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Report ids are hex on the platform; anything else is percent-encoded so it cannot change the path.
    static func pathSegment(_ id: String) -> String {
        var out = ""
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                // "." is escaped too: an id of ".." must not become a path step that curl squashes.
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + Hex.encode([byte], uppercase: true)
            }
        }
        return out
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, attos) = duration.components
        let millis = whole * 1000 + attos / 1_000_000_000_000_000
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)"
    }
}
