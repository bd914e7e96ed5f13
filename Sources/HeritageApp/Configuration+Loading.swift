import Basics
import FoundationEssentials
import HTTPServer
import PlatformClient

extension Configuration {
    /// A key's kind and where it lands. Kept in one table so that the file, the environment, the
    /// validation and `har --help` cannot disagree.
    struct Key: Sendable {
        enum Kind: Sendable {
            case string, optionalString
            case int(ClosedRange<Int>)
            case double(ClosedRange<Double>)
            case bool
        }
        let name: String
        let kind: Kind
        let help: String
        let set: @Sendable (inout Configuration, JSONValue) -> Bool

        var environmentName: String { "HAR_" + name.uppercased() }
    }

    static let keys: [Key] = [
        .string("host", \.host, "address the web application listens on"),
        .int("port", \.port, 0...65535, "port of the web application"),
        .string("data_dir", \.dataDir, "data folder: database, photos, generated keys"),
        .int("threads", \.threads, 1...256, "HTTP server threads"),
        .int(
            "connection_memory_bytes", \.connectionMemoryBytes, 8192...(1 << 20),
            "memory per connection: holds the request head (larger gets 431); bodies are read in half of it"),
        .int("max_body_bytes", \.maxBodyBytes, 1024...(1 << 40), "largest request body accepted"),
        .int("max_file_bytes", \.maxFileBytes, 1024...(1 << 40), "largest uploaded file"),
        .int("max_files", \.maxFiles, 1...1000, "most files in one request"),
        .int("max_connections", \.maxConnections, 1...100_000, "open connections in all"),
        .int("max_connections_per_ip", \.maxConnectionsPerIP, 1...100_000, "open connections per client address"),
        .int("idle_timeout_seconds", \.idleTimeoutSeconds, 1...86_400, "an idle connection is closed after this"),
        .int(
            "handler_deadline_seconds", \.handlerDeadlineSeconds, 1...3600,
            "a request still unanswered after this gets 503"),
        .optionalString("tls_cert", \.tlsCert, "PEM certificate: serve HTTPS"),
        .optionalString("tls_key", \.tlsKey, "PEM private key for tls_cert"),
        .bool("cookie_secure", \.cookieSecure, "Secure, __Host- cookies without tls_cert (behind a TLS proxy)"),
        .optionalString(
            "allowed_hosts", \.allowedHosts,
            "host names answered besides IP addresses and localhost, comma-separated (.example.org: and subdomains)"),
        .optionalString(
            "trusted_proxies", \.trustedProxies,
            "reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For / Forwarded is believed; unset = none"),
        .string("templates_dir", \.templatesDir, "folder of the page templates"),
        .string("public_dir", \.publicDir, "folder of the static files"),
        .int("gzip_level", \.gzipLevel, 0...9, "zlib level of pages and JSON sent gzip-compressed; 0 = not compressed"),
        .int(
            "list_kept_bytes", \.listKeptBytes, 0...(1 << 30),
            "bytes of rendered report lists kept by their ETag, per process; 0 = none kept"),
        .bool(
            "static_warm", \.staticWarm,
            "load and compress every static file at start, on a low-priority thread, not at its first request"),
        .bool("access_log", \.accessLog, "one line per request on standard output"),
        .bool("metrics_allow_remote", \.metricsAllowRemote, "serve /metrics to other than loopback"),
        .bool("benchmark_routes", \.benchmarkRoutes, "add the /bench/ routes used by bench/run"),
        .string("map_tile_url", \.mapTileURL, "map tile URL template of the creation page ({z}/{x}/{y})"),
        .int(
            "draft_retention_seconds", \.draftRetentionSeconds, 1...31_536_000,
            "an abandoned draft is deleted after this"),
        .optionalString("platform_url", \.platformURL, "upstream platform base URL; unset = embedded local platform"),
        .optionalString("consumer_key", \.consumerKey, "upstream consumer key"),
        .optionalString("consumer_secret", \.consumerSecret, "upstream consumer secret (never logged)"),
        .double("platform_connect_timeout", \.platformConnectTimeout, 0.1...600, "seconds to connect to the platform"),
        .double("platform_timeout", \.platformTimeout, 1...3600, "seconds for one platform call in all"),
        .optionalString("platform_proxy", \.platformProxy, "proxy for platform calls (none by default)"),
        .string("platform_host", \.platformHost, "address the local platform listens on"),
        .int("platform_port", \.platformPort, 0...65535, "port of the local platform (0 = any free port)"),
        .optionalString("platform_db", \.platformDB, "SQLite file of the local platform"),
        .optionalString("platform_apps", \.platformApps, "local platform consumer apps: key:secret[,key:secret]"),
        .int("platform_session_ttl", \.platformSessionTTL, 1...31_536_000, "local platform session lifetime, seconds"),
        .optionalString(
            "platform_faults", \.platformFaults, "local platform faults: fail5xx=0.3,drop=0.1,latency_ms=200,seed=1"),
        .optionalString(
            "platform_verified", \.platformVerified,
            "local platform: comma-separated e-mails whose accounts it reports as verified"),
        .int("platform_photo_limit_bytes", \.platformPhotoLimitBytes, 1...(1 << 40), "local platform photo size limit"),
        .bool("worker_enabled", \.workerEnabled, "upload worker on; off: reports are queued but not sent"),
        .int("worker_reports_at_once", \.workerReportsAtOnce, 1...64, "upload worker: reports sent at once"),
        .int("worker_photos_at_once", \.workerPhotosAtOnce, 1...64, "upload worker: photo uploads at once, in all"),
        .double(
            "worker_lease_seconds", \.workerLeaseSeconds, 1...86_400,
            "upload worker: a report's lease, taken over from a dead node after it"),
        .double("retry_base_seconds", \.retryBaseSeconds, 0.001...3600, "upload worker: first retry delay (doubles)"),
        .double("retry_cap_seconds", \.retryCapSeconds, 0.01...86_400, "upload worker: longest retry delay"),
        .int(
            "photo_retention_seconds", \.photoRetentionSeconds, 0...31_536_000,
            "keep photo files this long once the platform has them"),
        .int(
            "session_idle_seconds", \.sessionIdleSeconds, 60...31_536_000,
            "a web session unused for this long ends"),
        .int(
            "session_max_seconds", \.sessionMaxSeconds, 60...31_536_000,
            "a web session ends this long after its sign-in, however active"),
        .int(
            "upload_temp_max_bytes", \.uploadTempMaxBytes, 1024...(1 << 50),
            "most bytes uploads in progress may hold in the data folder's tmp"),
        .int(
            "upload_min_free_bytes", \.uploadMinFreeBytes, 0...(1 << 50),
            "photo uploads are refused while the data folder's disk has less free space"),
        .int(
            "header_timeout_seconds", \.headerTimeoutSeconds, 0...3600,
            "a connection whose request line and headers are not in after this is closed (0 = idle timeout only)"),
        .int(
            "min_body_bytes_per_second", \.minBodyBytesPerSecond, 0...(1 << 30),
            "a body arriving slower than this on average (after header_timeout_seconds) is cut off (0 = none)"),
        .int("photos_per_day", \.photosPerDay, 0...1_000_000, "photos one user may add in 24 hours (0 = no limit)"),
        .int(
            "photo_bytes_per_user", \.photoBytesPerUser, 0...(1 << 50),
            "bytes of one user's photos not yet on the platform (0 = no limit)"),
        .optionalString(
            "database_url", \.databaseURL,
            "PostgreSQL shared by several nodes (postgresql://… or key=value; never logged); unset = SQLite"),
        .int("database_pool_size", \.databasePoolSize, 1...1000, "PostgreSQL connections per node, at most"),
        .bool(
            "database_backup_taken", \.databaseBackupTaken,
            "PostgreSQL: a pg_dump was taken, start may apply migrations (or serve --i-have-a-backup)"),
        .optionalString("photo_dir", \.photoDir, "photo folder shared by every node; unset = <data_dir>/photos"),
        .optionalString("node_id", \.nodeID, "this node's name (letters, digits, . _ - :); unset = host name and port"),
        .optionalString("coordinators", \.coordinators, "comma-separated e-mails of coordinators (see har users)"),
        .string(
            "review_policy", \.reviewPolicy, "what waits for a coordinator's approval before upload: none|kiosk|all"),
        .int(
            "kiosk_idle_seconds", \.kioskIdleSeconds, 1...86_400,
            "a kiosk untouched this long asks \"still there?\" (a kiosk's own setting wins)"),
        .int(
            "kiosk_countdown_seconds", \.kioskCountdownSeconds, 1...3600,
            "the \"still there?\" countdown before a kiosk discards the visitor's report"),
        .optionalString(
            "backup_dir", \.backupDir, "folder of scheduled backups (har serve) and of har backup create; unset = none"),
        .int("backup_interval", \.backupInterval, 60...31_536_000, "seconds between scheduled backups (daily)"),
        .string(
            "backup_keep", \.backupKeep,
            "scheduled backups kept: DAILY,WEEKLY,MONTHLY newest per day, week, month (7,4,12)"),
        .optionalString(
            "backup_key", \.backupKey,
            "key (16+ characters) signing backups; verify and restore then refuse unsigned ones (never logged)"),
        .optionalString(
            "smtp_url", \.smtpURL,
            "mail server: smtp://host:587 (STARTTLS when offered) or smtps://host:465; unset = no mail"),
        .optionalString("smtp_from", \.smtpFrom, "sender address of the mail sent"),
        .optionalString(
            "smtp_user", \.smtpUser, "user name at the mail server (its password: HAR_SMTP_PASSWORD, environment only)"),
        .optionalString(
            "smtp_ca_file", \.smtpCAFile, "PEM authorities trusted for the mail server; unset = the system's"),
        .double(
            "smtp_timeout_seconds", \.smtpTimeoutSeconds, 1...3600, "seconds for handing one message to the mail server"
        ),
        .int(
            "mail_immediate_per_hour", \.mailImmediatePerHour, 0...10_000,
            "mails a coordinator who chose each report gets an hour at most; the rest go in the next digest"),
        .optionalString(
            "public_url", \.publicURL, "this site's address for the links in mail (https://…); unset = host and port"),
    ]

    /// The one setting read from the environment only: a secret has no place in a config file.
    static let smtpPasswordVariable = "HAR_SMTP_PASSWORD"

    /// Reads a JSON configuration file (an object of known keys) over the defaults, then the environment.
    public static func load(file: String?, environment: [String: String]) throws -> Configuration {
        var configuration = Configuration()
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("cannot read configuration file \(file)")
            }
            try configuration.apply(json: data, source: file)
        }
        try configuration.apply(environment: environment)
        configuration.smtpPassword = environment[smtpPasswordVariable].flatMap { $0.isEmpty ? nil : $0 }
        try configuration.validate()
        return configuration
    }

    mutating func apply(json data: Data, source: String) throws {
        let object: [String: JSONValue]
        do {
            object = try JSONDecoder().decode([String: JSONValue].self, from: data)
        } catch {
            throw ConfigurationError("\(source): not a JSON object of configuration keys")
        }
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            if name.hasPrefix("//") || name == "_comment" { continue }
            guard let key = Self.keys.first(where: { $0.name == name }) else {
                throw ConfigurationError("\(source): unknown configuration key \"\(name)\"")
            }
            guard key.set(&self, value) else {
                throw ConfigurationError("\(source): bad value for \"\(name)\": expected \(key.kind.expected)")
            }
        }
    }

    mutating func apply(environment: [String: String]) throws {
        // HAR_INTERNAL_* pass facts between our own processes (the embedded platform's parent pid);
        // HAR_SETUP_* choose what scripts/setup installs (`HAR_SETUP_BROWSER=0 scripts/run` must not
        // stop the server it then starts). Neither is configuration.
        for (variable, text) in environment.sorted(by: { $0.key < $1.key })
        where variable.hasPrefix("HAR_") && !variable.hasPrefix("HAR_INTERNAL_") && !variable.hasPrefix("HAR_SETUP_")
            && variable != Self.smtpPasswordVariable
        {
            guard let key = Self.keys.first(where: { $0.environmentName == variable }) else {
                throw ConfigurationError("unknown configuration variable \(variable)")
            }
            guard key.set(&self, key.kind.parse(text)) else {
                throw ConfigurationError("bad value for \(variable): expected \(key.kind.expected)")
            }
        }
    }

    /// Checks that need more than one key.
    func validate() throws {
        if ReviewPolicy(rawValue: reviewPolicy) == nil {
            throw ConfigurationError("bad value for \"review_policy\": expected none, kiosk or all")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ConfigurationError("tls_cert and tls_key go together: set both or neither")
        }
        if platformURL != nil {
            if consumerKey == nil { throw ConfigurationError("platform_url is set but consumer_key is missing") }
            if consumerSecret == nil { throw ConfigurationError("platform_url is set but consumer_secret is missing") }
            if let url = platformURL, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                throw ConfigurationError("bad value for \"platform_url\": expected an http:// or https:// URL")
            }
            // Passwords and session ids travel to the platform: in clear only to this machine itself.
            if let url = platformURL, url.hasPrefix("http://"), !Self.isLoopbackURL(url) {
                throw ConfigurationError(
                    "bad value for \"platform_url\": plain http:// is allowed only to this machine (127.0.0.1, localhost, [::1]); use https://"
                )
            }
        } else if consumerKey != nil || consumerSecret != nil {
            throw ConfigurationError("consumer_key and consumer_secret need platform_url")
        }
        if let nodeID, nodeID.isEmpty || nodeID.count > 100 || !nodeID.allSatisfy(Self.isNodeIDCharacter) {
            throw ConfigurationError(
                "bad value for \"node_id\": expected 1 to 100 letters, digits, '.', '_', '-' or ':'")
        }
        // Nodes sharing a database share its reports; an embedded platform per node would scatter them.
        if databaseURL != nil, platformURL == nil {
            throw ConfigurationError(
                "database_url needs platform_url: the embedded local platform is off when nodes share a database")
        }
        for name in allowedHostNames ?? [] where HostAllowlist.hostName(name) != name.lowercased() {
            throw ConfigurationError("bad value for \"allowed_hosts\": \"\(name)\" is not a host name or address")
        }
        if case .failure(let invalid) = TrustedProxies.parse(trustedProxies ?? "") {
            throw ConfigurationError(
                "bad value for \"trusted_proxies\": \"\(invalid.entry)\" is not an address or a CIDR range")
        }
        if BackupRetention(keep: backupKeep) == nil {
            throw ConfigurationError(
                "bad value for \"backup_keep\": expected DAILY,WEEKLY,MONTHLY counts such as 7,4,12")
        }
        if let backupKey, backupKey.count < BackupSignature.minimumKeyLength {
            throw ConfigurationError(
                "bad value for \"backup_key\": expected at least \(BackupSignature.minimumKeyLength) characters")
        }
        if retryCapSeconds < retryBaseSeconds {
            throw ConfigurationError("retry_cap_seconds must be at least retry_base_seconds")
        }
        try validateMail()
        if workerLeaseSeconds <= platformTimeout + 1 {
            throw ConfigurationError("worker_lease_seconds must be more than platform_timeout + 1")
        }
    }

    /// Whether an http:// URL's host is this machine.
    static func isLoopbackURL(_ url: String) -> Bool {
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") { return false }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host == "localhost" || host == "::1"
            || host.hasPrefix("127.")
                && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    /// Key names and help, for `har --help`.
    public static var helpLines: [String] {
        keys.map { key in
            let name = key.environmentName
            let padded = name + String(repeating: " ", count: max(1, 32 - name.count))
            return "  \(padded)\(key.help)"
        }
    }
}

extension Configuration.Key.Kind {
    var expected: String {
        switch self {
        case .string: return "a non-empty string"
        case .optionalString: return "a string or null"
        case .int(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .double(let range): return "a number from \(range.lowerBound) to \(range.upperBound)"
        case .bool: return "true or false"
        }
    }

    /// An environment variable's text as the value a file would have given.
    func parse(_ text: String) -> JSONValue {
        switch self {
        case .string, .optionalString: return .string(text)
        case .int, .double: return Double(text).map(JSONValue.number) ?? .string(text)
        case .bool:
            switch text.lowercased() {
            case "1", "true", "yes", "on": return .bool(true)
            case "0", "false", "no", "off": return .bool(false)
            default: return .string(text)
            }
        }
    }
}

extension Configuration.Key {
    static func string(_ name: String, _ path: WritableKeyPath<Configuration, String> & Sendable, _ help: String)
        -> Self
    {
        Self(name: name, kind: .string, help: help) { configuration, value in
            guard case .string(let text) = value, !text.isEmpty else { return false }
            configuration[keyPath: path] = text
            return true
        }
    }

    static func optionalString(
        _ name: String, _ path: WritableKeyPath<Configuration, String?> & Sendable, _ help: String
    ) -> Self {
        Self(name: name, kind: .optionalString, help: help) { configuration, value in
            switch value {
            case .null: configuration[keyPath: path] = nil
            case .string(let text): configuration[keyPath: path] = text.isEmpty ? nil : text
            default: return false
            }
            return true
        }
    }

    static func int(
        _ name: String, _ path: WritableKeyPath<Configuration, Int> & Sendable, _ range: ClosedRange<Int>,
        _ help: String
    ) -> Self {
        Self(name: name, kind: .int(range), help: help) { configuration, value in
            guard case .number(let number) = value, number.rounded() == number,
                number >= Double(range.lowerBound), number <= Double(range.upperBound)
            else { return false }
            configuration[keyPath: path] = Int(number)
            return true
        }
    }

    static func double(
        _ name: String, _ path: WritableKeyPath<Configuration, Double> & Sendable, _ range: ClosedRange<Double>,
        _ help: String
    ) -> Self {
        Self(name: name, kind: .double(range), help: help) { configuration, value in
            guard case .number(let number) = value, range.contains(number) else { return false }
            configuration[keyPath: path] = number
            return true
        }
    }

    static func bool(_ name: String, _ path: WritableKeyPath<Configuration, Bool> & Sendable, _ help: String) -> Self {
        Self(name: name, kind: .bool, help: help) { configuration, value in
            guard case .bool(let flag) = value else { return false }
            configuration[keyPath: path] = flag
            return true
        }
    }
}
