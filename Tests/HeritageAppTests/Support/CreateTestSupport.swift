import CVips
import Foundation
import Imaging
import SQLiteStorage
import Testing

/// A signed-in browser without JavaScript: the test client with its cookie jar, against a server.
final class SignedInClient {
    let server: any ServerUnderTest
    let http: HTTPClient
    let email: String
    private(set) var csrf = ""

    init(
        _ server: some ServerUnderTest,
        email: String = "volunteer.\(UUID().uuidString.prefix(8).lowercased())@example.org"
    ) async throws {
        self.server = server
        self.email = email
        http = try HTTPClient(baseURL: server.baseURL)
        let signin = try await http.get("/signin")
        let anonymous = try Self.csrf(in: signin.body)
        let answer = try await http.post(
            "/signin", form: [("email", email), ("password", "correct horse"), ("_csrf", anonymous)])
        guard answer.status == 303, answer.headers["location"] == "/reports" else {
            throw TestFailure("sign-in failed: \(answer.status) \(answer.body.prefix(300))")
        }
    }

    static func csrf(in html: String) throws -> String {
        guard let range = html.range(of: #"name="_csrf" value="[0-9a-f]+""#, options: .regularExpression) else {
            throw TestFailure("no CSRF token in page")
        }
        return String(html[range].dropFirst(20).dropLast())
    }

    /// A GET; `extra` in curl's words (`-H`, …).
    func get(_ path: String, _ extra: [String] = []) async throws -> CurlResponse {
        try await http.curl(path, extra)
    }

    /// A POST with the page's CSRF token in its header (unless `csrf` is false); `extra` in curl's words.
    func post(_ path: String, _ extra: [String] = [], csrf send: Bool = true) async throws -> CurlResponse {
        try await http.curl(path, ["-X", "POST"] + (send ? ["-H", "X-CSRF-Token: \(csrf)"] : []) + extra)
    }

    /// Opens the creation page (starts or resumes the draft); returns the draft's id.
    @discardableResult
    func openDraft() async throws -> String {
        let page = try await get("/reports/new")
        guard page.status == 200 else { throw TestFailure("GET /reports/new: \(page.status)") }
        csrf = try Self.csrf(in: page.body)
        guard let range = page.body.range(of: #"data-draft="[0-9a-f-]{36}""#, options: .regularExpression) else {
            throw TestFailure("no draft id")
        }
        return String(page.body[range].dropFirst(12).dropLast())
    }

    func upload(_ draft: String, file: String, fields: [String: String] = [:], type: String = "image/jpeg")
        async throws -> CurlResponse
    {
        var arguments = ["-F", "photo=@\(file);type=\(type)", "-H", "Accept: application/json"]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { arguments += ["-F", "\(name)=\(value)"] }
        return try await post("/api/drafts/\(draft)/photos", arguments)
    }

    /// The id of an accepted upload.
    func photoID(_ response: CurlResponse) throws -> String {
        guard let data = response.body.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = object["id"] as? String
        else { throw TestFailure("no photo id in \(response.status) \(response.body)") }
        return id
    }
}

/// Test images written by libvips, and JPEGs with EXIF made by hand.
enum TestImages {
    static func make(_ name: String, width: Int = 64, height: Int = 48, format: Int32 = 0) throws -> String {
        Imaging.initialize()
        let path = try TestPaths.temporaryDirectory() + "/" + name
        var image: OpaquePointer?
        guard har_vips_test_image(&image, Int32(width), Int32(height), 3) == 0, let image else {
            throw TestFailure("vips")
        }
        defer { har_vips_unref(image) }
        guard har_vips_test_save(image, path, format) == 0 else { throw TestFailure("vips save") }
        return path
    }

    static func jpeg(width: Int = 64, height: Int = 48) throws -> String {
        try make("photo.jpg", width: width, height: height, format: 0)
    }
    static func png() throws -> String { try make("photo.png", format: 1) }
    static func webp() throws -> String { try make("photo.webp", format: 2) }

    /// A JPEG with an Exif APP1 holding an orientation and, optionally, a GPS position (little-endian TIFF).
    static func jpegWithExif(
        orientation: Int = 1, gps: (lat: Double, lon: Double)? = nil, width: Int = 64, height: Int = 48
    )
        throws -> String
    {
        let base = try jpeg(width: width, height: height)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: base)))
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(v >> $0 & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        func dms(_ value: Double) -> [UInt8] {
            let degrees = Int(value)
            let minutes = Int((value - Double(degrees)) * 60)
            let seconds = ((value - Double(degrees)) * 60 - Double(minutes)) * 60
            return u32(degrees) + u32(1) + u32(minutes) + u32(1) + u32(Int(seconds * 1000)) + u32(1000)
        }
        var tiff = Array("II".utf8) + u16(42) + u32(8)
        let ifd0Count = gps == nil ? 1 : 2
        let ifd0Size = 2 + ifd0Count * 12 + 4
        var ifd0 = u16(ifd0Count) + entry(0x0112, 3, 1, u16(orientation))
        if let gps {
            let gpsOffset = 8 + ifd0Size
            ifd0 += entry(0x8825, 4, 1, u32(gpsOffset))
            ifd0 += u32(0)
            let gpsCount = 4
            let dataStart = gpsOffset + 2 + gpsCount * 12 + 4
            var ifd = u16(gpsCount)
            ifd += entry(1, 2, 2, Array((gps.lat >= 0 ? "N" : "S").utf8) + [0])
            ifd += entry(2, 5, 3, u32(dataStart))
            ifd += entry(3, 2, 2, Array((gps.lon >= 0 ? "E" : "W").utf8) + [0])
            ifd += entry(4, 5, 3, u32(dataStart + 24))
            ifd += u32(0)
            tiff += ifd0 + ifd + dms(abs(gps.lat)) + dms(abs(gps.lon))
        } else {
            tiff += ifd0 + u32(0)
        }
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let spliced =
            [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + payload + bytes.dropFirst(2)
        let path = try TestPaths.temporaryDirectory() + "/exif.jpg"
        try Data(spliced).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func file(_ contents: String, name: String) throws -> String {
        try TestPaths.temporaryFile(contents: contents, name: name)
    }
}

/// Reads the server's database (WAL: readers see committed rows while it runs).
func queryRows(_ server: some ServerUnderTest, _ sql: String) throws -> [[SQLValue]] {
    let database = try Database(path: server.dataDir + "/har.sqlite", mode: .readOnly, create: false)
    defer { database.close() }
    return try database.query(sql).map { row in try (0..<row.count).map { try row.value(at: $0) } }
}

func scalarValue(_ server: some ServerUnderTest, _ sql: String) throws -> SQLValue {
    try queryRows(server, sql).first?.first ?? .null
}

/// Names in a folder of the data dir (photos/, tmp/).
func files(in server: some ServerUnderTest, _ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: server.dataDir + "/" + folder)) ?? []).sorted()
}

/// Waits until folders of the data dir are empty. A spooled upload is removed when its request completes,
/// which may be just after its answer reached the client: polled (bounded), never slept for.
func waitUntilEmpty(_ server: some ServerUnderTest, _ folders: String...) async throws {
    try await waitUntil("\(folders.joined(separator: ", ")) hold no file", timeout: 10) {
        folders.allSatisfy { files(in: server, $0).isEmpty }
    }
    for folder in folders { #expect(files(in: server, folder).isEmpty) }
}
