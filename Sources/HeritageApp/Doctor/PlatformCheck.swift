import Basics
import PlatformClient

/// The upstream platform: reachable, the consumer key and secret accepted (a signed request), and this
/// machine's clock against the platform's `Date` (sessions and logs go wrong when they disagree).
enum PlatformCheck {
    static let subject = "platform"
    /// Clock differences beyond these are worth a warning, and a failure.
    static let clockWarningSeconds = 30.0
    static let clockFailureSeconds = 300.0

    static func run(_ configuration: Configuration) async -> [DoctorFinding] {
        guard let url = configuration.platformURL, let key = configuration.consumerKey,
            let secret = configuration.consumerSecret
        else {
            return [
                .ok(subject, "the embedded local platform (no platform_url): nothing upstream to check"),
                .ok("clock", "not compared: no upstream platform"),
            ]
        }
        var platformConfiguration = PlatformConfiguration(baseURL: url, consumerKey: key, consumerSecret: secret)
        platformConfiguration.connectTimeout = min(configuration.platformConnectTimeout, 10)
        platformConfiguration.totalTimeout = min(configuration.platformTimeout, 20)
        platformConfiguration.proxy = configuration.platformProxy
        let probe: PlatformProbe
        do {
            let client = try PlatformClient(configuration: platformConfiguration)
            probe = try await client.probe()
        } catch {
            return [
                .fail(
                    subject, "cannot reach the platform at platform_url: \(error)",
                    do: "check platform_url, the network, DNS and platform_proxy"),
                .warn("clock", "not compared: the platform did not answer", do: "check again once it answers"),
            ]
        }
        return [credentials(probe.credentials), clock(probe.date, now: WallClock.now())]
    }

    static func credentials(_ credentials: PlatformProbe.Credentials) -> DoctorFinding {
        switch credentials {
        case .accepted:
            return .ok(subject, "reachable; the consumer key and signature were accepted")
        case .refused(let error, let message):
            return .fail(
                subject, "the platform refused the consumer key or secret (\(error): \(message))",
                do: "set consumer_key and consumer_secret to the app's credentials the platform issued")
        case .unclear(let status, let error):
            return .warn(
                subject, "unexpected answer \(status) \(error) to a signed request",
                do: "check that platform_url is the platform's API base URL")
        }
    }

    static func clock(_ platformDate: Double?, now: Double) -> DoctorFinding {
        guard let platformDate else {
            return .warn("clock", "the platform sent no Date header to compare with", do: "check NTP on this machine")
        }
        let difference = now - platformDate
        let said = "this machine's clock is \(Int(difference.rounded())) s from the platform's"
        if abs(difference) > clockFailureSeconds {
            return .fail("clock", said, do: "set the time right (systemd-timesyncd or chrony)")
        }
        if abs(difference) > clockWarningSeconds {
            return .warn("clock", said, do: "enable time synchronisation (systemd-timesyncd or chrony)")
        }
        return .ok("clock", said)
    }
}
