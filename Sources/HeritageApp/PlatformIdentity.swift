/// Which platform a data folder's reports belong to. Its report ids, sessions and outbox mean nothing
/// to another platform: switched silently, the next list refresh would mark every stored report deleted
/// and reports in transfer would fail. So the first platform is recorded, and a different one later is
/// refused at start, unless the folder holds no report yet.
enum PlatformIdentity {
    /// "embedded" for the local platform `har serve` starts, else the upstream URL without a trailing slash.
    static func of(_ configuration: Configuration) -> String {
        guard let url = configuration.platformURL else { return "embedded" }
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    static func check(_ identity: String, store: any InstanceStore, dataDir: String) throws {
        guard let recorded = try store.claimPlatform(identity) else { return }
        let name = { (value: String) in value == "embedded" ? "the embedded local platform" : value }
        throw ConfigurationError(
            "the reports in \(dataDir) belong to \(name(recorded)), but the platform is now \(name(identity)); "
                + "use another data folder (HAR_DATA_DIR) for another platform, or configure \(name(recorded)) again"
        )
    }
}
