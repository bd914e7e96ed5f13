import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Secrets where other local users can read them: the consumer secret, a `database_url` with a
/// password, the mail server's password (`HAR_BACKUP_KEY` too) in the configuration file or the
/// environment file when either is readable by others, or in a systemd drop-in's `Environment=`, which
/// `systemctl show` prints to every user. docs/INSTALL.md says where they belong: /etc/har/har.env or
/// /etc/har/har.json, 0640 root:har.
enum SecretFilesCheck {
    static let subject = "secrets"
    /// The variables that hold a secret, whatever their value.
    static let secretVariables = ["HAR_CONSUMER_SECRET", "HAR_SMTP_PASSWORD", "HAR_BACKUP_KEY"]
    static let dropInFolders = ["/etc/systemd/system/har.service.d", "/run/systemd/system/har.service.d"]

    static func run(configurationFile: String?) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if let file = configurationFile, isReadableByOthers(file), let names = secretKeys(inJSON: file),
            !names.isEmpty
        {
            findings.append(readable(file, names))
        }
        let environmentFile = Command.systemEnvironmentFile
        if configurationFile == Command.systemConfigurationFile, isReadableByOthers(environmentFile),
            let values = try? EnvironmentFile.read(environmentFile)
        {
            let names = secretNames(values)
            if !names.isEmpty { findings.append(readable(environmentFile, names)) }
        }
        for folder in dropInFolders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() where name.hasSuffix(".conf") {
                let path = folder + "/" + name
                let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
                let found = secretNames(environmentLines(text))
                guard !found.isEmpty else { continue }
                findings.append(
                    .warn(
                        subject,
                        "\(path) sets \(found.joined(separator: ", ")) in Environment=, which systemctl show prints "
                            + "to every user",
                        do:
                            "move it to /etc/har/har.env (0640 root:har), remove it from \(path), systemctl daemon-reload"
                    ))
            }
        }
        return findings.isEmpty ? [.ok(subject, "no secret in a file other users can read")] : findings
    }

    private static func readable(_ file: String, _ names: [String]) -> DoctorFinding {
        .warn(
            subject, "\(file) holds \(names.joined(separator: ", ")) and every local user can read it",
            do: "chown root:har \(file) && chmod 0640 \(file)")
    }

    static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IROTH != 0
    }

    /// The secret keys a JSON configuration file sets; nil when it cannot be read.
    static func secretKeys(inJSON path: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: data)
        else { return nil }
        var values: [String: String] = [:]
        for (key, value) in object {
            if case .string(let text) = value { values["HAR_" + key.uppercased()] = text }
        }
        return secretNames(values).map { String($0.dropFirst("HAR_".count)).lowercased() }
    }

    /// The variables of `values` that hold a secret, sorted.
    static func secretNames(_ values: [String: String]) -> [String] {
        values.filter { name, value in
            guard !value.isEmpty else { return false }
            if secretVariables.contains(name) { return true }
            return name == "HAR_DATABASE_URL" && hasPassword(databaseURL: value)
        }.keys.sorted()
    }

    /// A `postgresql://user:password@…` URL, or libpq's `password=` key.
    static func hasPassword(databaseURL: String) -> Bool {
        if let scheme = databaseURL.firstRange(of: "://") {
            let authority = databaseURL[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            guard let at = authority.lastIndex(of: "@") else { return databaseURL.contains("password=") }
            return authority[..<at].contains(":") || databaseURL.contains("password=")
        }
        return databaseURL.split(separator: " ").contains { $0.hasPrefix("password=") }
    }

    /// The `NAME=value` pairs of a unit file's `Environment=` lines.
    static func environmentLines(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("Environment=") {
            for word in line.dropFirst("Environment=".count).split(separator: " ") {
                let pair = word.filter { $0 != "\"" && $0 != "'" }
                if let equals = pair.firstIndex(of: "=") {
                    values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
                }
            }
        }
        return values
    }
}
