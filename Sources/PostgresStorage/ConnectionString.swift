import CPostgreSQL

/// Checks a `postgresql://…` URL or libpq `key=value` string before any connection is tried.
///
/// libpq's own parse errors quote the token they stumbled on, and for a mistyped scheme or a stray `%`
/// that token is the whole URL, password included. Its message is dropped; ours names only what is
/// safe to name: a scheme or a key made of plain letters, or the kind of mistake.
public enum ConnectionString {
    /// Throws a `PostgresError` that never holds the string's text beyond a scheme or a key name.
    public static func validate(_ text: String) throws {
        var libpqMessage: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(text, &libpqMessage)
        if let libpqMessage { PQfreemem(libpqMessage) }
        if let options {
            PQconninfoFree(options)
            return
        }
        throw PostgresError(sqlState: "08001", message: "database_url is not valid: \(problem(in: text))")
    }

    /// The connection's settings as libpq's environment variables (`PGHOST`, `PGPASSWORD`, …), for
    /// `pg_dump` and `pg_restore`: given on their command line, a password would show in `ps` to every
    /// user of the machine; in the environment only the process's owner can read it.
    public static func environment(_ text: String) throws -> [String: String] {
        try validate(text)
        var libpqMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &libpqMessage) else {
            if let libpqMessage { PQfreemem(libpqMessage) }
            throw PostgresError(sqlState: "08001", message: "database_url is not valid")
        }
        defer { PQconninfoFree(options) }
        var variables: [String: String] = [:]
        var option = options
        while option.pointee.keyword != nil {
            if let value = option.pointee.val, let name = option.pointee.envvar {
                variables[String(cString: name)] = String(cString: value)
            }
            option += 1
        }
        return variables
    }

    /// What is wrong, in words that quote nothing but a scheme or a key.
    static func problem(in text: String) -> String {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        if let schemeEnd = trimmed.firstRange(of: "://") {
            let scheme = trimmed[..<schemeEnd.lowerBound]
            let isURI = scheme == "postgresql" || scheme == "postgres"
            if !isURI {
                if isPlainName(scheme, allowing: "+.-") {
                    return "the scheme \"\(scheme)\" is neither postgresql:// nor postgres://"
                }
                return "it does not start with postgresql:// or postgres://"
            }
            return uriProblem(String(trimmed[schemeEnd.upperBound...]))
        }
        return keywordProblem(String(trimmed))
    }

    private static func uriProblem(_ rest: String) -> String {
        let bytes = Array(rest.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                // libpq refuses %00 too (a NUL would cut the value).
                let valid =
                    index + 2 < bytes.count && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2])
                    && !(bytes[index + 1] == UInt8(ascii: "0") && bytes[index + 2] == UInt8(ascii: "0"))
                if !valid {
                    return "it holds a \"%\" that is not a %-escape (write a \"%\" in the user name or password as %25)"
                }
                index += 3
            } else {
                index += 1
            }
        }
        if let query = rest.split(separator: "?", maxSplits: 1).dropFirst().first {
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return "a query parameter has no \"=\"" }
                if let named = unknownKey(String(parts[0])) { return named }
            }
        }
        return "libpq cannot read it as a URL (its text is not shown: it may hold a password)"
    }

    private static func keywordProblem(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "'" {
                quoted.toggle()
                current.append(character)
            } else if !quoted && (character == " " || character == "\t" || character == "\n") {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if quoted { return "a quoted value is not closed" }
        if !current.isEmpty { words.append(current) }
        for (number, word) in words.enumerated() {
            guard let equals = word.firstIndex(of: "=") else {
                return "word \(number + 1) has no \"=\" (expected key=value, or a postgresql:// URL)"
            }
            if let named = unknownKey(String(word[..<equals])) { return named }
        }
        return "libpq cannot read it (its text is not shown: it may hold a password)"
    }

    /// A message naming `key` when libpq does not know it; nil when it does.
    private static func unknownKey(_ key: String) -> String? {
        if knownKeys.contains(key) || key == "ssl" { return nil }
        if isPlainName(Substring(key), allowing: "_") && key.count <= 40 {
            return "libpq has no key \"\(key)\""
        }
        return "a key is not one libpq knows"
    }

    private static func isPlainName(_ text: Substring, allowing extra: String) -> Bool {
        !text.isEmpty && text.count <= 40
            && text.unicodeScalars.allSatisfy { scalar in
                (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                    || extra.unicodeScalars.contains(scalar)
            }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// The keys this libpq accepts, from its own table.
    private static let knownKeys: Set<String> = {
        var keys: Set<String> = []
        guard let defaults = PQconndefaults() else { return keys }
        defer { PQconninfoFree(defaults) }
        var option = defaults
        while let keyword = option.pointee.keyword {
            keys.insert(String(cString: keyword))
            option += 1
        }
        return keys
    }()
}
