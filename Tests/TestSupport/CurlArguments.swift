import Foundation

/// The few curl options the tests were first written with, read into one request of `HTTPClient`, so
/// that a test can keep saying `["-X", "DELETE", "-H", "Accept: application/json"]` or `["-F",
/// "photo=@file;type=image/jpeg"]` while no curl process runs. `-b`/`-c` (the jar) are the client's
/// own cookies; `--path-as-is` is what this client always does.
public struct CurlArguments {
    public var method: String?
    public var headers: [(String, String)] = []
    public var formFields: [(String, String)] = []
    public var rawBody: [UInt8]?
    public var parts: [MultipartPart] = []

    public init(_ arguments: [String]) throws {
        var index = 0
        func next() throws -> String {
            index += 1
            guard index < arguments.count else { throw TestFailure("curl option without value: \(arguments)") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-X", "--request": method = try next()
            case "-H", "--header":
                let line = try next()
                guard let colon = line.firstIndex(of: ":") else { throw TestFailure("bad header \(line)") }
                headers.append(
                    (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            case "--data-urlencode":
                let field = try next()
                guard let equals = field.firstIndex(of: "=") else { throw TestFailure("bad field \(field)") }
                formFields.append((String(field[..<equals]), String(field[field.index(after: equals)...])))
            case "--data-binary", "-d", "--data":
                let value = try next()
                if value.hasPrefix("@") {
                    rawBody = [UInt8](try Data(contentsOf: URL(fileURLWithPath: String(value.dropFirst()))))
                } else {
                    rawBody = Array(value.utf8)
                }
            case "-F", "--form": parts.append(try Self.part(try next()))
            case "-b", "-c", "--cookie", "--cookie-jar", "-D", "--max-time": _ = try next()
            case "--path-as-is", "-s", "-S", "-sS": break
            default: throw TestFailure("curl option not understood by the test client: \(argument)")
            }
            index += 1
        }
    }

    /// `name=value`, or `name=@path[;type=TYPE]` for a file.
    static func part(_ text: String) throws -> MultipartPart {
        guard let equals = text.firstIndex(of: "=") else { throw TestFailure("bad form part \(text)") }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard value.hasPrefix("@") else { return .field(name, value) }
        var path = String(value.dropFirst())
        var type: String?
        if let semicolon = path.range(of: ";type=") {
            type = String(path[semicolon.upperBound...])
            path = String(path[..<semicolon.lowerBound])
        }
        return try .file(name, path: path, contentType: type)
    }
}

extension HTTPClient {
    /// One request described by curl options (see `CurlArguments`), with this client's cookies.
    public func curl(_ path: String, _ arguments: [String]) async throws -> HTTPResponse {
        let parsed = try CurlArguments(arguments)
        let hasBody = parsed.rawBody != nil || !parsed.formFields.isEmpty || !parsed.parts.isEmpty
        let method = parsed.method ?? (hasBody ? "POST" : "GET")
        if !parsed.parts.isEmpty {
            return try await post(path, multipart: parsed.parts, headers: parsed.headers)
                .checkedMethod(method)
        }
        var headers = parsed.headers
        var body: [UInt8] = []
        if let raw = parsed.rawBody {
            body = raw
        } else if !parsed.formFields.isEmpty {
            body = Array(FormEncoding.urlencoded(parsed.formFields).utf8)
        }
        if hasBody && !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.insert(("Content-Type", "application/x-www-form-urlencoded"), at: 0)
        }
        return try await send(method, path, headers: headers, body: body)
    }
}

extension HTTPResponse {
    fileprivate func checkedMethod(_ method: String) throws -> HTTPResponse {
        guard method == "POST" else { throw TestFailure("multipart bodies go with POST, not \(method)") }
        return self
    }
}
