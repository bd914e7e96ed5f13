import FoundationEssentials
import PlatformClient

/// How a local platform runs: its consumer apps, session lifetime, limits, data folder and faults.
public struct LocalPlatformConfiguration: Sendable {
    /// Consumer key → consumer secret.
    public var apps: [String: String]
    public var sessionTTL: Double
    public var photoLimitBytes: Int
    /// Photos are kept under `dataDirectory/photos`.
    public var dataDirectory: String
    /// PBKDF2 rounds for new passwords; tests lower it to stay fast.
    public var passwordIterations: Int
    public var faults: FaultConfiguration
    /// Tests only: e-mails are kept as typed, so `Ann@x` and `ann@x` are two accounts
    /// with two ids, as some platforms have them. Set by `HAR_INTERNAL_TEST_CASE_SENSITIVE_EMAILS=1`,
    /// which is not configuration.
    public var caseSensitiveEmails = false
    /// Lower-cased e-mails whose accounts are reported verified (`is_verified`): the local platform
    /// sends no mail, so a verification is configured (`HAR_PLATFORM_VERIFIED`).
    public var verifiedEmails: Set<String> = []

    public init(
        apps: [String: String], sessionTTL: Double = 86_400, photoLimitBytes: Int = 30 * 1024 * 1024,
        dataDirectory: String, passwordIterations: Int = 150_000, faults: FaultConfiguration = FaultConfiguration()
    ) {
        self.apps = apps
        self.sessionTTL = sessionTTL
        self.photoLimitBytes = faults.photoLimitBytes ?? photoLimitBytes
        self.dataDirectory = dataDirectory
        self.passwordIterations = passwordIterations
        self.faults = faults
    }

    /// Parses `key:secret[,key:secret…]` (`HAR_PLATFORM_APPS`). A secret may itself contain ":".
    public static func parseApps(_ text: String) throws(Refusal) -> [String: String] {
        var apps: [String: String] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw .invalidArgument("platform apps must be key:secret[,key:secret…]")
            }
            apps[String(parts[0])] = String(parts[1])
        }
        return apps
    }
}
