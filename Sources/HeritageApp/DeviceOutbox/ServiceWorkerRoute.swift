import FoundationEssentials
import HTTPServer
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// `/sw.js`: the service worker (Public/js/sw.js) served from the site's root, so that its scope is the
/// whole site (OFF-01). Its first line names the version of the app shell: a hash of every file under
/// Public/ (and of the program's version), computed once at start. A changed file makes a changed worker;
/// the browser installs it beside the running one, and it takes over at the next start of the app.
enum ServiceWorkerRoute {
    static func register(on router: inout Router, publicDir: String) {
        let version = shellVersion(publicDir: publicDir)
        router.getInline("/sw.js") { request in
            let path = publicDir + "/js/sw.js"
            guard let data = FileManager.default.contents(atPath: path) else { throw HTTPError(404) }
            let body = Array("self.HAR_SHELL_VERSION = '\(version)';\n".utf8) + Array(data)
            return Response(
                status: 200,
                headers: Headers([
                    ("Content-Type", "text/javascript; charset=utf-8"),
                    // The browser checks for a new worker on every start of the app: never from a cache.
                    ("Cache-Control", "no-cache"),
                    ("Service-Worker-Allowed", "/"),
                ]),
                body: request.method == "HEAD" ? .bytes([]) : .bytes(body))
        }
    }

    /// The hash of the program's version and of every file under `publicDir` (path and bytes), in a
    /// fixed order; 16 hex digits.
    static func shellVersion(publicDir: String) -> String {
        var input = Array(Command.version.utf8)
        let files = ((try? FileManager.default.subpathsOfDirectory(atPath: publicDir)) ?? []).sorted()
        for relative in files {
            guard let data = FileManager.default.contents(atPath: publicDir + "/" + relative) else { continue }
            input += Array(relative.utf8) + [0] + Array(SHA256Stream.hash(Array(data)).utf8)
        }
        return String(SHA256Stream.hash(input).prefix(16))
    }
}
