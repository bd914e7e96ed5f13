// Files under one directory, served by extension with ETag, Last-Modified, Cache-Control and the
// conditional and range answers of ConditionalRequests.swift. Nothing outside
// the directory is reachable: encoded separators, dot segments, backslashes and NUL are refused up
// front, and the real path (symlinks resolved) must still lie under the real directory.
//
// Speed: a file that passed those checks is remembered with its identity (device, inode, size,
// mtime, ctime), its ETag and headers, and, when small, its bytes. A later request costs one
// fstatat(2) relative to the directory: the same identity means the same checked file, served from
// memory; anything else (edited, replaced, turned into a symlink) goes through the full checks again.
// Before this, each request paid realpath (a readlink per path component), stat, open, sendfile and
// close, and MHD sent the headers and a file body in two system calls instead of one.
//
// Compression: a text file (CSS, JavaScript, SVG, JSON, HTML) is compressed once when it is
// loaded, with gzip at level 9 and brotli at quality 11, and each smaller form is kept as a
// representation of its own, with its own ETag ("…-gzip", "…-br"), Content-Encoding and length; the
// request's Accept-Encoding picks one (brotli first), and all of them say `Vary: Accept-Encoding`.
// Images and fonts are never compressed again.
import Glibc
import Synchronization

struct StaticFiles: Sendable {
    let root: String
    let cacheControl: String
    private let cache: StaticFileCache

    /// Files up to this size are kept in memory; larger ones are streamed from disk on each request.
    static let maximumCachedFileBytes = 128 * 1024
    /// Text files up to this size are compressed once and kept, in every form (Leaflet's script is 431 KB).
    static let maximumCompressedFileBytes = 2 * 1024 * 1024
    /// Text files up to this size get brotli's best quality (11); larger ones quality 7.
    static let maximumBestBrotliBytes = 128 * 1024
    /// Bounds on the cache, so a large public folder cannot grow the process without limit.
    static let maximumCachedEntries = 1024
    static let maximumCachedBytes = 16 * 1024 * 1024

    private let compressed: CompressedForms

    /// `compressed`: where the compressed forms of files are kept, shared by the instances that serve
    /// one folder under different caching (`serveStatic`'s plain and versioned URLs), so that each file
    /// is compressed once, not once per instance.
    init(directory: String, cacheControl: String, compressed: CompressedForms = CompressedForms()) {
        root = StaticFiles.realPath(directory) ?? directory
        self.cacheControl = cacheControl
        self.compressed = compressed
        cache = StaticFileCache(directory: root)
    }

    /// Loads every file under the folder that is not loaded yet, compressing the text files as a first
    /// request for each would (brotli 11 costs ~1 s of CPU per MB: app.css took 34 ms). Run when the
    /// server starts, on a thread of low priority (`Application`), so that no visitor's request, and
    /// none of the other connections of its MHD thread, waits for a compression. Returns how many files
    /// were loaded; a file that cannot be read is left to its first request, as before.
    @discardableResult
    func warm() -> Int {
        var loaded = 0
        for relative in StaticAssetVersion.files(under: root) where StaticFiles.isAcceptableRelativePath(relative) {
            if let identity = cache.identity(of: relative), cache.entry(relative, matching: identity) != nil {
                continue
            }
            if (try? load(relative)) != nil { loaded += 1 }
        }
        return loaded
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "ico": "image/x-icon",
        "json": "application/json", "txt": "text/plain; charset=utf-8", "map": "application/json",
        "woff2": "font/woff2",
    ]

    func respond(to request: Request) throws -> Response {
        guard StaticFiles.isAcceptableRawPath(request.rawPath), let relative = request.parameters["path"],
            StaticFiles.isAcceptableRelativePath(relative)
        else { throw HTTPError(404) }

        let entry: StaticFileEntry
        if let identity = cache.identity(of: relative), let cached = cache.entry(relative, matching: identity) {
            entry = cached
        } else {
            entry = try load(relative)
        }
        let chosen = entry.representation(for: request.headers["Accept-Encoding"])
        let conditions = ConditionalHeaders(request.headers)
        if !conditions.isEmpty {
            let outcome = Conditional.evaluate(
                conditions, method: request.method, tag: chosen.tag, lastModified: entry.identity.mtimeSeconds,
                size: chosen.size)
            switch outcome {
            case .full:
                break
            case .notModified:
                var response = Response(status: 304, headers: chosen.notModifiedHeaders)
                response.reusable = chosen.notModifiedResponse
                return response
            case .partial, .unsatisfiable, .preconditionFailed:
                let body: Response.Body =
                    chosen.content.map { .bytes($0) } ?? .file(path: entry.resolvedPath, size: chosen.size)
                return ConditionalFile.answer(
                    outcome, full: Response(status: 200, headers: chosen.headers, body: body), size: chosen.size)
            }
        }
        if let content = chosen.content {
            var response = Response(status: 200, headers: chosen.headers, body: .bytes(content))
            response.reusable = chosen.response
            return response
        }
        return Response(status: 200, headers: chosen.headers, body: .file(path: entry.resolvedPath, size: chosen.size))
    }

    /// The full checks (realpath under the root, a regular file), then a cache entry for the file.
    private func load(_ relative: String) throws -> StaticFileEntry {
        // Bytes, not String.hasPrefix: that compares characters under canonical equivalence, so "cafe\u{301}/"
        // passed for "caf\u{E9}/", and a combining mark after the "/" made a real prefix fail (fuzzing).
        guard let resolved = StaticFiles.realPath(root + "/" + relative), resolved.utf8.starts(with: (root + "/").utf8)
        else {
            throw HTTPError(404)
        }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw HTTPError(404) }
        var identity = FileIdentity(info)
        let name = resolved.split(separator: "/").last ?? ""
        let dotParts = name.split(separator: ".")
        let fileExtension = dotParts.count > 1 ? dotParts.last.map { $0.lowercased() } : nil
        let contentType = fileExtension.flatMap { StaticFiles.contentTypes[$0] } ?? "application/octet-stream"
        let compressible =
            Compression.isCompressible(contentType: contentType)
            && identity.size <= StaticFiles.maximumCompressedFileBytes
        var content: [UInt8]?
        if identity.size <= StaticFiles.maximumCachedFileBytes || compressible,
            let read = StaticFiles.readWhole(resolved)
        {
            // The bytes and the identity that goes with them come from the same open file.
            content = read.bytes
            identity = read.identity
        }
        let tag = Conditional.tag(
            size: identity.size, mtimeSeconds: identity.mtimeSeconds, mtimeNanoseconds: identity.mtimeNanoseconds)
        let lastModified = HTTPDate.format(identity.mtimeSeconds)
        func representation(_ coding: ContentCoding, _ bytes: [UInt8]?) -> StaticRepresentation {
            let codingTag = coding.tag(from: tag)
            var notModified = Headers([("ETag", codingTag), ("Cache-Control", cacheControl)])
            var headers = Headers([
                ("ETag", codingTag), ("Last-Modified", lastModified), ("Cache-Control", cacheControl),
                ("Content-Type", contentType), ("Accept-Ranges", "bytes"),
            ])
            if coding != .identity { headers.add("Content-Encoding", coding.rawValue) }
            if compressible {
                headers.add("Vary", "Accept-Encoding")
                notModified.add("Vary", "Accept-Encoding")
            }
            return StaticRepresentation(
                coding: coding, tag: codingTag, content: bytes, size: bytes?.count ?? identity.size,
                headers: headers, notModifiedHeaders: notModified)
        }
        var packed: [StaticRepresentation] = []
        if compressible, let read = content {
            // Quality 11 costs about 1 s of CPU per MB (leaflet.js, 431 KB: 0.54 s, 86 KB), which a file
            // changed while the server runs costs its first request: larger files take quality 7 (96 KB
            // for leaflet.js, 12 MB of working memory; quality 9 gave 95 KB for 37 MB, and compressing
            // at start raised the peak RSS by that much).
            let quality: Int32 = read.count <= StaticFiles.maximumBestBrotliBytes ? 11 : 7
            let forms = compressed.forms(of: resolved, identity: identity, content: read) {
                (Compression.brotli(read, quality: quality), Compression.gzip(read, level: 9))
            }
            // The bytes another instance kept for this very file, when it did: one copy in memory. A
            // file over `maximumCachedFileBytes` was read only to be compressed: as it is, it is sent
            // from disk (Leaflet's 431 KB, which browsers take compressed).
            content = forms.content
            // Kept only when it saves something worth a second ETag (a tenth, at least 256 bytes).
            func worthIt(_ form: [UInt8]?) -> [UInt8]? {
                guard let form, form.count + max(256, read.count / 10) <= read.count else { return nil }
                return form
            }
            if let brotli = worthIt(forms.brotli) { packed.append(representation(.br, brotli)) }
            if let gzip = worthIt(forms.gzip) { packed.append(representation(.gzip, gzip)) }
        }
        let representations = [representation(.identity, content)] + packed
        let entry = StaticFileEntry(identity: identity, resolvedPath: resolved, representations: representations)
        cache.store(entry, for: relative)
        return entry
    }

    /// Refuses, on the path as sent, encoded slashes, backslashes and NUL ("%2f", "%5c", "%00" in any
    /// case, and "\"): one pass over the bytes.
    static func isAcceptableRawPath(_ rawPath: String) -> Bool {
        rawPath.withUTF8Bytes { bytes in
            var previous: (UInt8, UInt8) = (0, 0)
            for byte in bytes {
                if byte == UInt8(ascii: "\\") { return false }
                if previous.0 == UInt8(ascii: "%") {
                    let high = previous.1
                    let low = byte | 0x20  // ASCII lower case
                    if (high == UInt8(ascii: "2") && low == UInt8(ascii: "f"))
                        || (high == UInt8(ascii: "5") && low == UInt8(ascii: "c"))
                        || (high == UInt8(ascii: "0") && byte == UInt8(ascii: "0"))
                    {
                        return false
                    }
                }
                previous = (previous.1, byte)
            }
            return true
        }
    }

    /// The decoded rest of the path: non-empty segments, none "." or "..", no NUL or backslash.
    static func isAcceptableRelativePath(_ relative: String) -> Bool {
        relative.withUTF8Bytes { bytes in
            var segmentLength = 0
            var dots = 0
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "/"):
                    if segmentLength == 0 || dots == segmentLength && dots <= 2 { return false }
                    segmentLength = 0
                    dots = 0
                    continue
                case 0, UInt8(ascii: "\\"):
                    return false
                case UInt8(ascii: "."):
                    dots += 1
                default:
                    break
                }
                segmentLength += 1
            }
            return segmentLength > 0 && !(dots == segmentLength && dots <= 2)
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A small file's bytes and the identity of what was read; nil if it changed size meanwhile.
    static func readWhole(_ path: String) -> (bytes: [UInt8], identity: FileIdentity)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0, (before.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(before.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress.map { $0 + offset }, size - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            offset += count
        }
        var after = stat()
        guard fstat(fd, &after) == 0, FileIdentity(after) == FileIdentity(before) else { return nil }
        return (bytes, FileIdentity(before))
    }
}
