import Glibc
import Synchronization

/// The compressed forms of files by real path, each with the identity of the bytes it was made from:
/// another identity (the file changed) is compressed again. Shared by the `StaticFiles` of one folder;
/// bounded as their caches are (`maximumCachedEntries` files and `maximumCachedBytes` bytes: when
/// either would be passed, all are dropped).
public final class CompressedForms: Sendable {
    struct Forms: Sendable {
        let identity: FileIdentity
        /// Nil over `StaticFiles.maximumCachedFileBytes`.
        let content: [UInt8]?
        let brotli: [UInt8]?
        let gzip: [UInt8]?

        var bytes: Int { (content?.count ?? 0) + (brotli?.count ?? 0) + (gzip?.count ?? 0) }
    }
    private struct Table {
        var forms: [String: Forms] = [:]
        var bytes = 0
    }
    private let kept = Mutex(Table())

    public init() {}

    /// The kept forms of `path` as of `identity` (its bytes as `content`, read with that identity), or
    /// `make`'s, kept for next time with `content`. The bytes returned are the kept ones, so instances
    /// share one copy. `make` runs outside the lock: two first requests at once may both compress, and
    /// either result is right.
    func forms(
        of path: String, identity: FileIdentity, content: [UInt8], make: () -> (brotli: [UInt8]?, gzip: [UInt8]?)
    ) -> Forms {
        if let forms = kept.withLock({ $0.forms[path] }), forms.identity == identity { return forms }
        let made = make()
        let kept = content.count <= StaticFiles.maximumCachedFileBytes ? content : nil
        let forms = Forms(identity: identity, content: kept, brotli: made.brotli, gzip: made.gzip)
        self.kept.withLock { table in
            table.bytes -= table.forms.removeValue(forKey: path)?.bytes ?? 0
            if table.forms.count >= StaticFiles.maximumCachedEntries
                || table.bytes + forms.bytes > StaticFiles.maximumCachedBytes
            {
                table = Table()
            }
            table.forms[path] = forms
            table.bytes += forms.bytes
        }
        return forms
    }

    var count: Int { kept.withLock { $0.forms.count } }
    var bytes: Int { kept.withLock { $0.bytes } }
}

/// What tells one version of a file from another without reading it.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var mtimeSeconds: Int
    var mtimeNanoseconds: Int
    var ctimeSeconds: Int
    var ctimeNanoseconds: Int

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
        mtimeSeconds = info.st_mtim.tv_sec
        mtimeNanoseconds = info.st_mtim.tv_nsec
        ctimeSeconds = info.st_ctim.tv_sec
        ctimeNanoseconds = info.st_ctim.tv_nsec
    }
}

/// A file that passed the checks, as it was then: its representations (as it is, and compressed).
final class StaticFileEntry: Sendable {
    let identity: FileIdentity
    let resolvedPath: String
    /// The identity representation first, then the compressed ones that were worth keeping.
    let representations: [StaticRepresentation]
    private let offered: [ContentCoding]

    init(identity: FileIdentity, resolvedPath: String, representations: [StaticRepresentation]) {
        self.identity = identity
        self.resolvedPath = resolvedPath
        self.representations = representations
        offered = representations.map(\.coding)
    }

    /// The representation the client prefers among those kept (brotli before gzip on equal terms).
    func representation(for acceptEncoding: String?) -> StaticRepresentation {
        guard representations.count > 1 else { return representations[0] }
        let coding = AcceptEncoding.choose(acceptEncoding, offered: offered)
        return representations.first { $0.coding == coding } ?? representations[0]
    }

    /// Bytes kept in memory for this file, all representations.
    var cachedBytes: Int { representations.reduce(0) { $0 + ($1.content?.count ?? 0) } }
}

/// One encoding of a file: its ETag, headers, bytes (when kept), and the MHD responses built for it.
final class StaticRepresentation: Sendable {
    let coding: ContentCoding
    let tag: String
    /// The whole representation when kept in memory (always for a compressed one).
    let content: [UInt8]?
    let size: Int
    let notModifiedHeaders: Headers
    let headers: Headers
    /// The MHD responses for 200 (in-memory only) and 304, built on first use.
    let response = ReusableResponse()
    let notModifiedResponse = ReusableResponse()

    init(
        coding: ContentCoding, tag: String, content: [UInt8]?, size: Int, headers: Headers, notModifiedHeaders: Headers
    ) {
        self.coding = coding
        self.tag = tag
        self.content = content
        self.size = size
        self.headers = headers
        self.notModifiedHeaders = notModifiedHeaders
    }
}

/// Checked files by path under the directory. Shared by every MHD thread and looked up on every
/// request for a file, hence a read-write lock (`ReadMostly`): lookups never wait for one another, and
/// the write lock is held only for an insertion.
final class StaticFileCache: Sendable {
    private struct State {
        var entries: [String: StaticFileEntry] = [:]
        var bytes = 0
    }
    private let state = ReadMostly(State())
    /// The directory opened once, so a check is an fstatat of the relative path rather than a
    /// walk from "/". -1 when it could not be opened; then the full path is used.
    private let directoryDescriptor: Int32
    private let directory: String

    init(directory: String) {
        self.directory = directory
        directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    deinit {
        if directoryDescriptor >= 0 { close(directoryDescriptor) }
    }

    /// The identity of what `relative` names now (symlinks followed), or nil if it is not there.
    func identity(of relative: String) -> FileIdentity? {
        var info = stat()
        let result =
            directoryDescriptor >= 0
            ? fstatat(directoryDescriptor, relative, &info, 0) : stat(directory + "/" + relative, &info)
        guard result == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(info)
    }

    func entry(_ relative: String, matching identity: FileIdentity) -> StaticFileEntry? {
        state.read { state in
            guard let entry = state.entries[relative], entry.identity == identity else { return nil }
            return entry
        }
    }

    func store(_ entry: StaticFileEntry, for relative: String) {
        state.write { state in
            state.bytes -= state.entries.removeValue(forKey: relative)?.cachedBytes ?? 0
            let added = entry.cachedBytes
            if state.entries.count >= StaticFiles.maximumCachedEntries
                || state.bytes + added > StaticFiles.maximumCachedBytes
            {
                // Full: start over rather than track recency; a public folder this large is unusual.
                state.entries.removeAll()
                state.bytes = 0
            }
            state.bytes += added
            state.entries[relative] = entry
        }
    }
}
