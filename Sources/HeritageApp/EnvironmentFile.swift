import FoundationEssentials

/// A file of `NAME=value` lines, as systemd's `EnvironmentFile=` reads it: `#` and `;` start a comment
/// line, blank lines are skipped, a value may be wrapped in single or double quotes. The package's
/// `/etc/har/har.env` (0640 root:har) holds the service's secrets there, and `har` commands read the
/// same file (`Command.loadConfiguration`), so `sudo -u har har doctor` finds what the service finds.
enum EnvironmentFile {
    static func read(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read \(path): run the command as har (sudo -u har) or root")
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    static func parse(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = Text.trimmed(String(raw))
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";"), let equals = line.firstIndex(of: "=")
            else { continue }
            let name = Text.trimmed(String(line[..<equals]))
            var value = Text.trimmed(String(line[line.index(after: equals)...]))
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            if !name.isEmpty { values[name] = value }
        }
        return values
    }
}
