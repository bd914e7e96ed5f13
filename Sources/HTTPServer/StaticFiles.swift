// Files under one directory, served by extension with ETag/304 and Cache-Control. Nothing outside
// the directory is reachable: encoded separators, dot segments, backslashes and NUL are refused up
// front, and the real path (symlinks resolved) must still lie under the real directory.
import Glibc

struct StaticFiles: Sendable {
    let root: String
    let cacheControl: String

    init(directory: String, cacheControl: String) {
        root = StaticFiles.realPath(directory) ?? directory
        self.cacheControl = cacheControl
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "ico": "image/x-icon",
        "json": "application/json", "txt": "text/plain; charset=utf-8", "map": "application/json",
        "woff2": "font/woff2",
    ]

    func respond(to request: Request) throws -> Response {
        let raw = request.rawPath.lowercased()
        guard !raw.contains("%2f"), !raw.contains("%5c"), !raw.contains("%00"), !raw.contains("\\"),
            let relative = request.parameters["path"], !relative.isEmpty
        else { throw HTTPError(404) }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") && !$0.contains("\\") })
        else { throw HTTPError(404) }
        guard let resolved = StaticFiles.realPath(root + "/" + relative), resolved.hasPrefix(root + "/") else {
            throw HTTPError(404)
        }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw HTTPError(404) }

        let size = Int(info.st_size)
        let tag = "\"\(String(size, radix: 16))-\(String(info.st_mtim.tv_sec, radix: 16))"
            + "\(String(info.st_mtim.tv_nsec, radix: 16))\""
        var headers = Headers([("ETag", tag), ("Cache-Control", cacheControl)])
        if let condition = request.headers["If-None-Match"],
            condition.split(separator: ",").contains(where: { $0.trimmingCharacters(in: " \t") == tag || $0.trimmingCharacters(in: " \t") == "*" })
        {
            return Response(status: 304, headers: headers)
        }
        let name = resolved.split(separator: "/").last ?? ""
        let fileExtension = name.split(separator: ".").count > 1 ? name.split(separator: ".").last.map { $0.lowercased() } : nil
        headers.add("Content-Type", fileExtension.flatMap { StaticFiles.contentTypes[$0] } ?? "application/octet-stream")
        return Response(status: 200, headers: headers, body: .file(path: resolved, size: size))
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
