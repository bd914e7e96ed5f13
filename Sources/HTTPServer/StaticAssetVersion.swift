// Versioned asset URLs: pages name `/static/css/app.css?v=<version>`, where the version is
// made from the names and bytes of every file under the public folder when the server starts. A
// request carrying the current version is answered `Cache-Control: public, max-age=31536000, immutable`
// (a browser then never asks again); any other request for the same file (no `v`, an old one) gets
// the ordinary short caching. A new release with changed files has a new version, hence new URLs.
// The same bytes give the same version after a restart, so caches survive restarts of one release.
import CZlib
import Glibc

public enum StaticAssetVersion {
    /// Long caching for URLs that change whenever their content does (RFC 8246).
    public static let immutableCacheControl = "public, max-age=31536000, immutable"

    /// 16 hex digits from every regular file under `directory` (relative path and bytes, in sorted
    /// order: CRC-32 and Adler-32 of the lot). Not a security measure: a cache key. Empty when the
    /// folder cannot be read.
    public static func of(directory: String) -> String {
        let files = files(under: directory)
        guard !files.isEmpty else { return "" }
        var crc = crc32(0, nil, 0)
        var adler = adler32(0, nil, 0)
        for relative in files {
            var bytes = Array(relative.utf8) + [0]
            if let content = StaticFiles.readWhole(directory + "/" + relative)?.bytes { bytes += content }
            bytes.withUnsafeBufferPointer { buffer in
                crc = crc32(crc, buffer.baseAddress, uInt(buffer.count))
                adler = adler32(adler, buffer.baseAddress, uInt(buffer.count))
            }
        }
        func hex(_ value: uLong) -> String {
            let text = String(value & 0xffff_ffff, radix: 16)
            return String(repeating: "0", count: max(0, 8 - text.count)) + text
        }
        return hex(crc) + hex(adler)
    }

    /// The regular files under `directory` (symlinks followed), as paths relative to it, sorted.
    public static func files(under directory: String) -> [String] {
        var files: [String] = []
        collect(directory, relative: "", into: &files)
        return files.sorted()
    }

    private static func collect(_ root: String, relative: String, into files: inout [String]) {
        guard let directory = opendir(relative.isEmpty ? root : root + "/" + relative) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard stat(root + "/" + path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: collect(root, relative: path, into: &files)
            case S_IFREG: files.append(path)
            default: continue
            }
        }
    }
}

extension Router {
    /// Serves the files under `directory` at `prefix`, as `serveStatic`, and with `immutableCacheControl`
    /// for requests whose `v` query argument is `version` (URLs made with `StaticAssetVersion.of`).
    /// Returns what loads (and compresses) every file ahead of its first request (`StaticWarmer.warm`).
    @discardableResult
    public mutating func serveStatic(
        prefix: String, directory: String, cacheControl: String = "public, max-age=3600", version: String
    ) -> StaticWarmer {
        let compressed = CompressedForms()
        let files = StaticFiles(directory: directory, cacheControl: cacheControl, compressed: compressed)
        let pinned = StaticFiles(
            directory: directory, cacheControl: StaticAssetVersion.immutableCacheControl, compressed: compressed)
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        getInline(trimmed + "/*path") { request in
            if !version.isEmpty, request.queryValue("v") == version { return try pinned.respond(to: request) }
            return try files.respond(to: request)
        }
        // Pages name the versioned URLs: those are loaded ahead; a plain URL's first request then finds
        // the file's bytes and compressed forms made (no compression), and shares them.
        return StaticWarmer(served: [pinned], compressed: compressed)
    }
}

/// Loads the files `serveStatic` serves at their versioned URLs (the ones pages name) before anyone
/// asks for them; the plain URLs then take the bytes and compressed forms already made.
public struct StaticWarmer: Sendable {
    let served: [StaticFiles]
    /// The compressed forms both share (tests count them).
    let compressed: CompressedForms

    /// How many files were loaded.
    ///
    /// Then gives back to the system the pages the compressors' working memory left free
    /// (`ProcessMemory.trim`).
    @discardableResult
    public func warm() -> Int {
        let loaded = served.reduce(0) { $0 + $1.warm() }
        ProcessMemory.trim()
        return loaded
    }
}
