import Foundation
import HTTPServer

@testable import LocalPlatform
@testable import PlatformClient

/// A local platform in memory and a way to build signed requests to it, as the client would send them.
struct LocalPlatformHarness {
    static let key = "test-app"
    static let secret = "NDk2MGFmMTNjZjYwNDVhODg0ZmZlNGFhYTMzNGJhOTM="
    let platform: LocalPlatform
    let directory: String
    let clock: TestClock

    init(
        photoLimit: Int = 1_000_000, ttl: Double = 3600, faults: FaultConfiguration = FaultConfiguration(),
        sqlite: Bool = false
    ) throws {
        directory = try TestSupport.temporaryDirectory()
        let store: any LocalPlatformStore =
            sqlite ? try SQLitePlatformStore(path: directory + "/platform.sqlite") : InMemoryPlatformStore()
        let clock = TestClock()
        self.clock = clock
        platform = LocalPlatform(
            configuration: LocalPlatformConfiguration(
                apps: [Self.key: Self.secret], sessionTTL: ttl, photoLimitBytes: photoLimit,
                dataDirectory: directory + "/data", passwordIterations: 1000, faults: faults),
            store: store, now: { clock.now })
    }

    func request(
        _ method: String, _ path: String, json: String? = nil, session: String? = nil, idempotencyKey: String? = nil,
        omit: String? = nil, signature: String? = nil, key: String = Self.key
    ) -> Request {
        let body = Array((json ?? "").utf8)
        var headers = Headers()
        headers.add("X-API-Key", key)
        headers.add("X-API-Sig", signature ?? Signature.sign(path: path, body: body, secret: Self.secret))
        if let session { headers.add("X-Authentication", session) }
        if json != nil { headers.add("Content-Type", "application/json") }
        if let idempotencyKey { headers.add("Idempotency-Key", idempotencyKey) }
        if let omit { headers = Headers(headers.fields.filter { $0.name != omit }) }
        return Request(method: method, path: path, headers: headers, body: body)
    }

    /// A multipart photo request as the HTTP server would hand it over: the raw body spooled to a file
    /// (for the signature), the file part in its own temporary file, the text parts parsed.
    func photoRequest(
        reportID: String, bytes: [UInt8], session: String, idempotencyKey: String? = nil,
        latitude: Double? = 48.853, tamper: Bool = false
    ) throws -> Request {
        let source = directory + "/source-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        let photo = PhotoUpload(filePath: source, contentType: "image/jpeg", latitude: latitude)
        let body = try MultipartBody(photo: photo, boundary: MultipartBody.randomBoundary())
        let path = "/har/report/\(reportID)/photo"
        let signature = try body.signature(path: path, secret: Self.secret)
        var raw = try body.bufferedBytes()
        if tamper { raw[raw.count / 2] ^= 1 }
        let rawPath = directory + "/raw-\(UUID().uuidString)"
        try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        var headers = Headers()
        headers.add("X-API-Key", Self.key)
        headers.add("X-API-Sig", signature)
        headers.add("X-Authentication", session)
        headers.add("Content-Type", body.contentType)
        if let idempotencyKey { headers.add("Idempotency-Key", idempotencyKey) }
        let part = directory + "/part-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: source, toPath: part)
        return Request(
            method: "POST", path: path, headers: headers,
            formFields: latitude.map { [("latitude", String($0))] } ?? [],
            files: [
                UploadedFile(
                    fieldName: "photo", fileName: "photo.jpg", contentType: "image/jpeg", path: part,
                    size: bytes.count)
            ],
            rawBodyPath: rawPath)
    }

    func signIn(_ email: String = "volunteer@example.org", password: String = "7Dj3VEE8Z9j4E4Jv") throws -> String {
        let response = platform.respond(
            to: request(
                "POST", "/account/session", json: #"{"email_address":"\#(email)","password":"\#(password)"}"#))
        return try JSONDecoder().decode(PlatformSession.self, from: Data(response.bytes)).sessionID
    }

    static let reportJSON =
        #"{"condition":"poor","designation":"LPW","grade":"I","occupancy":"not_applicable","owner_type":"religious_organization","place_name":"Nha Tho Duc Ba","priority_category":"F","location":{"latitude":48.853,"longitude":2.349,"accuracy":10}}"#

    func createReport(session: String, json: String = Self.reportJSON) throws -> String {
        let response = platform.respond(to: request("POST", "/har/report", json: json, session: session))
        return try JSONDecoder().decode(CreatedReport.self, from: Data(response.bytes)).reportID
    }
}

final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_795_963_277)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: Double) { lock.withLock { current += seconds } }
}

extension Response {
    var bytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
    var errorName: String? {
        (try? JSONDecoder().decode([String: String].self, from: Data(bytes)))?["error"]
    }
}

extension [UInt8] {
    static func jpeg(size: Int) -> [UInt8] { [0xFF, 0xD8, 0xFF, 0xE0] + (0..<(size - 4)).map { UInt8($0 % 253) } }
}
