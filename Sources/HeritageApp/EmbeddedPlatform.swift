import FoundationEssentials
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// With no upstream configured, `har serve` runs the local platform as a child process (`har platform`)
/// on a free loopback port, with a consumer key and secret generated on first run and kept in the data
/// folder, so that the product works out of the box on a machine with no network.
final class EmbeddedPlatform: Sendable {
    let child: ChildProcess
    let baseURL: String
    let consumerKey: String
    let consumerSecret: String

    init(configuration: Configuration, log: Log, executable: String? = nil) throws {
        let credentials = try Self.credentials(in: configuration.dataDir)
        consumerKey = credentials.key
        consumerSecret = credentials.secret
        var environment: [String: String] = [
            "HAR_PLATFORM_HOST": "127.0.0.1",
            "HAR_PLATFORM_PORT": "0",
            "HAR_PLATFORM_APPS": "\(credentials.key):\(credentials.secret)",
            "HAR_PLATFORM_SESSION_TTL": String(configuration.platformSessionTTL),
            "HAR_PLATFORM_PHOTO_LIMIT_BYTES": String(configuration.platformPhotoLimitBytes),
            "HAR_DATA_DIR": configuration.dataDir + "/platform",
            "HAR_ACCESS_LOG": "false",
            "HAR_INTERNAL_PARENT_PID": String(getpid()),
        ]
        if let faults = configuration.platformFaults { environment["HAR_PLATFORM_FAULTS"] = faults }
        if let verified = configuration.platformVerified { environment["HAR_PLATFORM_VERIFIED"] = verified }
        if let database = configuration.platformDB { environment["HAR_PLATFORM_DB"] = database }
        for name in ["PATH", "LANG", "TMPDIR", "HAR_INTERNAL_TEST_CASE_SENSITIVE_EMAILS"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        child = try ChildProcess(
            executable: executable ?? Self.ownExecutable(), arguments: ["platform"], environment: environment)
        let port = child.waitForLine(timeout: 30) { line -> Int? in
            guard let range = line.firstRange(of: "listening on http://127.0.0.1:") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        guard let port else {
            child.stop()
            throw ConfigurationError("the embedded local platform did not start (see its messages above)")
        }
        baseURL = "http://127.0.0.1:\(port)"
        log.info("embedded local platform on \(baseURL)")
    }

    func stop() { child.stop() }

    /// The key and secret of the embedded platform's one app: read from `platform-app.json` in the data
    /// folder, or generated (256 random bits each) and written there, readable by this user only.
    static func credentials(in dataDir: String) throws -> (key: String, secret: String) {
        struct Stored: Codable {
            var consumerKey: String
            var consumerSecret: String
            enum CodingKeys: String, CodingKey {
                case consumerKey = "consumer_key"
                case consumerSecret = "consumer_secret"
            }
        }
        let path = dataDir + "/platform-app.json"
        if let data = FileManager.default.contents(atPath: path) {
            guard let stored = try? JSONDecoder().decode(Stored.self, from: data),
                !stored.consumerKey.isEmpty, !stored.consumerSecret.isEmpty
            else {
                throw ConfigurationError(
                    "\(path) is not a key file of the local platform; remove it to generate a new one")
            }
            return (stored.consumerKey, stored.consumerSecret)
        }
        let stored = Stored(
            consumerKey: "har-" + Crypto.randomHex(bytes: 16),
            consumerSecret: Data(Crypto.randomBytes(32)).base64EncodedString())
        let data = try JSONEncoder().encode(stored)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else {
            unlink(path)
            throw ConfigurationError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return (stored.consumerKey, stored.consumerSecret)
    }

    static func ownExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw ConfigurationError("cannot find the har executable (/proc/self/exe)") }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
