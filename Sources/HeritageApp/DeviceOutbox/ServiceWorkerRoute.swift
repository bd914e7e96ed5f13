import FoundationEssentials
import HTTPServer
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// `/sw.js`: the service worker (Public/js/sw.js, an ES module) served from the site's root, so that its
/// scope is the whole site (OFF-01). Its first line (`prologue`) names the version of the app shell, a
/// hash of every file under Public/ (and of the program's version), and the static files both service
/// workers keep (Public/js/core/shell-cache.js), both computed once at start. A changed file makes a
/// changed worker; the browser installs it beside the running one, and it takes over at the next start
/// of the app. The kiosk's worker (`/kiosk/sw.js`, KioskDevice) is served the same way.
enum ServiceWorkerRoute {
    static func register(on router: inout Router, publicDir: String) {
        let prologue = prologue(publicDir: publicDir)
        router.getInline("/sw.js") { request in
            try worker(publicDir + "/js/sw.js", prologue: prologue, allowed: "/", request: request)
        }
    }

    /// A service worker's script with `prologue` before it; never from a cache (the browser checks for a
    /// new worker on every start of the app).
    static func worker(_ path: String, prologue: [UInt8], allowed scope: String, request: Request) throws -> Response {
        guard let data = FileManager.default.contents(atPath: path) else { throw HTTPError(404) }
        return Response(
            status: 200,
            headers: Headers([
                ("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-cache"),
                ("Service-Worker-Allowed", scope),
            ]),
            body: request.method == "HEAD" ? .bytes([]) : .bytes(prologue + Array(data)))
    }

    /// `self.HAR_SHELL_VERSION = '…'; self.HAR_ASSETS = [...];`: the shell's version and the URLs of the
    /// files under `publicDir` as `/static/` serves them (the list `StaticAssetVersion` versions), but
    /// the service workers themselves.
    static func prologue(publicDir: String) -> [UInt8] {
        let workers: Set = ["js/sw.js", "js/kiosk/sw.js"]
        let assets = StaticAssetVersion.files(under: publicDir).filter { !workers.contains($0) }
            .map { "\"/static/" + $0.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"" }
        let text =
            "self.HAR_SHELL_VERSION = '\(shellVersion(publicDir: publicDir))'; "
            + "self.HAR_ASSETS = [\(assets.joined(separator: ", "))];\n"
        return Array(text.utf8)
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
