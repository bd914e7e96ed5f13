import CVips
import Foundation
import Imaging
import PlatformClient
import SQLiteStorage

@testable import HeritageApp

/// A person at a browser without JavaScript, submitting reports through the web endpoints of the
/// application (the test client, with its cookie jar): sign in once, then for each report open the
/// creation page (a draft), upload its photos (multipart, as the file input sends them) and post
/// the submission form with its one-time token. Each photo is a real JPEG written by libvips, of a
/// size of its own and with a comment segment of its own, so no two photos have the same bytes; the
/// SHA-256 of exactly the bytes sent is what the platform must end up holding.
final class WebReporter {
    let baseURL: String
    let folder: String
    let http: HTTPClient
    private(set) var csrf = ""
    private(set) var signInAttempts = 0
    private var photosMade = 0

    init(baseURL: String, folder: String) throws {
        self.baseURL = baseURL
        self.folder = folder + "/web-reporter"
        try FileManager.default.createDirectory(atPath: self.folder, withIntermediateDirectories: true)
        http = try HTTPClient(baseURL: baseURL)
        Imaging.initialize()
    }

    func get(_ path: String) async throws -> CurlResponse { try await http.get(path) }

    /// A POST; `arguments` in curl's words (`--data-urlencode`, `-F`, `-H`).
    func post(_ path: String, _ arguments: [String]) async throws -> CurlResponse {
        try await http.curl(path, arguments)
    }

    /// Signs in through the application, which asks the platform. With faults on, the platform may
    /// fail the call: the page then says to try again (503, or 502 for a garbled answer), and the
    /// user does, a bounded number of times. Each attempt counts against the sign-in rate limit
    /// (10 per 5 minutes), hence one sign-in for the whole test and at most `attempts` tries.
    func signIn(email: String, password: String = "correct horse battery", attempts: Int = 8) async throws {
        var last = ""
        for attempt in 1...attempts {
            signInAttempts = attempt
            let page = try await get("/signin")
            guard page.status == 200 else { throw TestFailure("GET /signin: \(page.status)") }
            let token = try SignedInClient.csrf(in: page.body)
            let answer = try await post(
                "/signin",
                [
                    "--data-urlencode", "email=\(email)", "--data-urlencode", "password=\(password)",
                    "--data-urlencode", "_csrf=\(token)",
                ])
            if answer.status == 303, answer.headers["location"] == "/reports" { return }
            last = "\(answer.status) \(answer.body.prefix(300))"
            guard answer.status == 503 || answer.status == 502 else { throw TestFailure("sign-in refused: \(last)") }
            try await Task.sleep(for: .milliseconds(300))
        }
        throw TestFailure("sign-in failed \(attempts) times; last: \(last)")
    }

    /// A JPEG of about 1-2 KB: a libvips gradient of a size that changes from one photo to the next,
    /// with a COM segment carrying `label` and a UUID after the SOI marker.
    func jpeg(label: String) throws -> [UInt8] {
        photosMade += 1
        let (width, height) = (80 + photosMade % 48, 60 + photosMade / 48 % 24)
        let path = folder + "/vips-\(photosMade).jpg"
        var image: OpaquePointer?
        guard har_vips_test_image(&image, Int32(width), Int32(height), 3) == 0, let image else {
            throw TestFailure("vips")
        }
        defer { har_vips_unref(image) }
        guard har_vips_test_save(image, path, 0) == 0 else { throw TestFailure("vips save") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let encoded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard encoded.starts(with: [0xFF, 0xD8]) else { throw TestFailure("libvips did not write a JPEG") }
        let text = Array("har-test \(label) \(UUID().uuidString)".utf8)
        let length = text.count + 2
        return [0xFF, 0xD8, 0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + text + encoded.dropFirst(2)
    }

    /// One report through the web endpoints: creation page, `photos` uploads, the submission form.
    /// Returns the draft's id (the report's local id) and the SHA-256 of each photo sent, in order.
    func submitReport(name: String, photos: Int, latitude: Double, longitude: Double) async throws
        -> (localID: String, hashes: [String])
    {
        let creation = try await get("/reports/new")
        guard creation.status == 200 else { throw TestFailure("GET /reports/new: \(creation.status)") }
        csrf = try SignedInClient.csrf(in: creation.body)
        guard let draft = creation.body.firstMatch(#"data-draft="([0-9a-f-]{36})""#) else {
            throw TestFailure("no draft id on the creation page")
        }
        var hashes: [String] = []
        for position in 0..<photos {
            let bytes = try jpeg(label: "\(name) photo \(position)")
            let path = folder + "/\(draft)-\(position).jpg"
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw TestFailure("cannot write \(path)")
            }
            defer { try? FileManager.default.removeItem(atPath: path) }
            let answer = try await post(
                "/api/drafts/\(draft)/photos",
                [
                    "-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json", "-F",
                    "photo=@\(path);type=image/jpeg",
                    "-F", "latitude=\(latitude)", "-F", "longitude=\(longitude)", "-F", "accuracy=8",
                ])
            guard answer.status == 201 else {
                throw TestFailure("photo upload: \(answer.status) \(answer.body.prefix(300))")
            }
            hashes.append(SHA256Stream.hash(bytes))
        }
        let page = try await get("/reports/new/submit")
        guard let token = page.body.firstMatch(#"name="submit_token" value="([0-9a-f]{64})""#),
            page.body.firstMatch(#"name="draft" value="([0-9a-f-]{36})""#) == draft
        else { throw TestFailure("submission page: \(page.status), no token or another draft") }
        var arguments = [
            "--data-urlencode", "_csrf=\(csrf)", "--data-urlencode", "submit_token=\(token)",
            "--data-urlencode", "draft=\(draft)", "--data-urlencode", "name=\(name)",
        ]
        let codes = [
            "designation": "LB", "condition": "poor", "occupancy": "vacant", "priority_category": "A",
            "owner_type": "private", "grade": "II",
        ]
        for (field, code) in codes.sorted(by: { $0.key < $1.key }) {
            arguments += ["--data-urlencode", "\(field)=\(code)"]
        }
        let submitted = try await post("/reports/new/submit", arguments)
        guard submitted.status == 303, submitted.headers["location"] == "/reports" else {
            throw TestFailure("submission: \(submitted.status) \(submitted.body.prefix(300))")
        }
        return (draft, hashes)
    }

    /// `count` reports of `photos` photos each, recorded in `fixture` for the final check.
    func submitReports(_ count: Int, photos: Int = 3, tag: String, into fixture: OutboxFixture) async throws {
        for index in 0..<count {
            let name = "Chapel \(tag) \(index + 1) \(UUID().uuidString.prefix(8).lowercased())"
            let (localID, hashes) = try await submitReport(
                name: name, photos: photos, latitude: 51.5, longitude: -0.12 - Double(index) / 1000)
            // The application recorded the hash of exactly the bytes sent (it keeps the original file).
            let recorded = try fixture.recordedHashes(of: localID)
            guard recorded == hashes else {
                throw TestFailure("\(name): the app recorded \(recorded), the test sent \(hashes)")
            }
            try fixture.recordSubmitted(localID: localID, placeName: name, photoHashes: hashes)
        }
    }
}
