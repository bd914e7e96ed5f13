import Foundation

/// A browser without JavaScript: the test client with its cookie jar and kept-alive connection.
final class WebClient {
    let base: String
    let http: HTTPClient

    init(_ server: some ServerUnderTest) throws {
        base = server.baseURL
        http = try HTTPClient(baseURL: base)
    }

    /// A GET; `extra` in curl's words (`-H`, `-X`, …).
    func get(_ path: String, _ extra: [String] = []) async throws -> CurlResponse {
        try await http.curl(path, extra)
    }

    /// POSTs form fields (urlencoded).
    func post(_ path: String, _ fields: [(String, String)], _ extra: [String] = []) async throws -> CurlResponse {
        var arguments: [String] = []
        for (name, value) in fields { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        if fields.isEmpty && !extra.contains("--data-binary") { arguments += ["-X", "POST"] }
        return try await http.curl(path, arguments + extra)
    }

    func postJSON(_ path: String, _ json: String, csrf: String?) async throws -> CurlResponse {
        var headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        if let csrf { headers.append(("X-CSRF-Token", csrf)) }
        return try await http.send("POST", path, headers: headers, body: Array(json.utf8))
    }

    /// The CSRF token the page at `path` puts in its forms.
    func csrf(from path: String = "/signin") async throws -> String {
        let page = try await get(path).body
        guard let range = page.range(of: #"name="_csrf" value="[0-9a-f]+""#, options: .regularExpression) else {
            return ""
        }
        return String(page[range].dropFirst(#"name="_csrf" value=""#.count).dropLast())
    }

    func signIn(_ email: String, _ password: String = "correct horse") async throws -> CurlResponse {
        try await post("/signin", [("_csrf", try await csrf()), ("email", email), ("password", password)])
    }

    /// The value of a cookie in the jar.
    func cookie(_ name: String) -> String? { http.cookie(name) }

    func setCookie(_ name: String, _ value: String) throws { http.setCookie(name, value) }
}

func uniqueEmail() -> String { "volunteer.\(UUID().uuidString.prefix(8).lowercased())@example.org" }
