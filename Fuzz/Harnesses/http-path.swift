// libFuzzer harness: the request target as the server reads it. The input is the raw request target
// ("/static/a%2e/b?x=1"); it goes through the same steps as HTTPServer.begin (split at "?", strict
// percent-decoding of the path, query decoding), the router, and the static-file responder over a
// scratch folder that holds a symlink and a sibling file outside the served directory. Checked on
// every input: a decoded path has no NUL and is valid UTF-8; router captures hold no "/" (":name") and
// no empty segment ("*rest"); a static answer never carries the bytes of a file outside the folder.
import Glibc

let staticFixture: (files: StaticFiles, secret: [UInt8]) = {
    let scratch = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((scratch + "/har-fuzz-static-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    let base = String(cString: made)
    let secret = Array("SECRET-OUTSIDE-THE-STATIC-FOLDER".utf8)
    func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { fatalError("cannot write \(path)") }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
    mkdir(base + "/public", 0o700)
    mkdir(base + "/public/css", 0o700)
    mkdir(base + "/public/..data", 0o700)
    write(base + "/secret.txt", secret)
    write(base + "/public/app.css", Array("body{}".utf8))
    write(base + "/public/css/site.css", Array("p{}".utf8))
    write(base + "/public/..data/x.txt", Array("dots".utf8))
    write(base + "/public/a b%.txt", Array("space".utf8))
    symlink(base + "/secret.txt", base + "/public/link.txt")
    symlink(base, base + "/public/up")
    return (StaticFiles(directory: base + "/public", cacheControl: "no-cache"), secret)
}()

let fuzzRouter: Router = {
    var router = Router()
    let answer: InlineHandler = { _ in Response(status: 200) }
    router.getInline("/", answer)
    router.getInline("/report/:id", answer)
    router.getInline("/report/:id/photo/:photo", answer)
    router.postInline("/report/:id/photo", answer)
    router.getInline("/files/*path", answer)
    router.getInline("/static/*path", answer)
    return router
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPPath(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let rawURI = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let uri = rawURI.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)
    let rawPath = String(decoding: uri.first ?? [], as: UTF8.self)
    let query = uri.count > 1 ? Decoding.query(Substring(String(decoding: uri[1], as: UTF8.self))) : []
    for (name, value) in query where name.isEmpty || name.utf8.contains(0) || value.utf8.contains(0) {
        fatalError("query pair with an empty name or a NUL: \(name.debugDescription)=\(value.debugDescription)")
    }
    guard let path = Decoding.path(rawPath) else { return 0 }
    guard path.utf8.first == UInt8(ascii: "/"), !path.utf8.contains(0) else {
        fatalError("decoded path \(path.debugDescription)")
    }

    for method in ["GET", "POST"] {
        guard case .found(_, let parameters) = fuzzRouter.match(method: method, path: path) else { continue }
        for name in ["id", "photo"] {
            if let value = parameters[name], value.isEmpty || value.contains("/") {
                fatalError("parameter \(name) = \(value.debugDescription) from \(path.debugDescription)")
            }
        }
        if let rest = parameters["path"],
            rest.utf8.first == UInt8(ascii: "/") || rest.utf8.last == UInt8(ascii: "/")
                || Array(rest.utf8).contains(subsequence: Array("//".utf8))
        {
            fatalError("rest \(rest.debugDescription) from \(path.debugDescription)")
        }
        guard method == "GET", path.utf8.starts(with: "/static".utf8) else { continue }
        let request = Request(method: "GET", path: path, rawPath: rawPath, parameters: parameters)
        guard let response = try? staticFixture.files.respond(to: request) else { continue }
        switch response.body {
        case .bytes(let bytes) where bytes == staticFixture.secret:
            fatalError("served a file outside the folder for \(rawPath.debugDescription)")
        case .file(let resolved, _) where !resolved.utf8.starts(with: (staticFixture.files.root + "/").utf8):
            fatalError("streams \(resolved) for \(rawPath.debugDescription)")
        default: break
        }
    }
    return 0
}
