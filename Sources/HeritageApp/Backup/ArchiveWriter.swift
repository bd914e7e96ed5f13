import Basics
import Dispatch
import FoundationEssentials
import PlatformClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a backup archive: a POSIX ustar stream (so `tar tf` and `tar xf` read it too), through one
/// 1 MiB buffer. Files are streamed, never held whole in memory. Until `seal()` it keeps the archive's
/// checksum for the trailer: the SHA-256 of every header block and in-memory entry (the manifest) and,
/// for each file, of its content's 32-byte SHA-256, so each file's bytes are hashed once, not twice
/// (padding is zeros, which the reader insists on). Any changed byte changes a header, the manifest or
/// a file's digest, and so the checksum.
final class ArchiveWriter {
    static let blockSize = 512
    private static let bufferSize = 1 << 20

    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where a file's bytes are read into: made once (a megabyte zeroed per photo cost more than the copy).
    private var chunk = [UInt8](repeating: 0, count: bufferSize)
    private var digest: SHA256Stream? = SHA256Stream()
    private(set) var bytesWritten = 0
    private let modificationTime = Int(time(nil))

    /// Creates the file, mode 0600 from its first moment: the archive holds what the database holds,
    /// sessions included. A leftover of a killed run (never a backup) is removed first, so that its
    /// mode, owner or a link in its place is not reused.
    init(path: String) throws {
        self.path = path
        descriptor = Self.createPrivate(path)
        guard descriptor >= 0 else { throw BackupError("cannot create \(path): \(Self.reason())") }
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// One entry from bytes in memory (the manifest, the trailer).
    func add(name: String, bytes: [UInt8]) throws {
        try appendHashed(Self.header(name: name, size: bytes.count, modificationTime: modificationTime))
        try appendHashed(bytes)
        try pad(bytes.count)
    }

    /// One entry streamed from `source`, exactly `size` bytes, whose SHA-256 the manifest already
    /// gives (`sha256`, hex): it goes into the archive's checksum as it is, and the bytes are not
    /// hashed here. The check that follows every write (`BackupCreator`) hashes what was written, so a
    /// file that is not what the manifest says fails the backup there. A file shorter than `size`
    /// (changed since it was listed) fails it here.
    func add(name: String, file source: String, size: Int, sha256: String) throws {
        guard let expected = Hex.decode(sha256), expected.count == 32 else {
            throw BackupError("\(source): its recorded SHA-256 is not one (\(sha256))")
        }
        try appendHashed(Self.header(name: name, size: size, modificationTime: modificationTime))
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw BackupError("cannot read \(source): \(Self.reason())") }
        defer { close(input) }
        var remaining = size
        while remaining > 0 {
            let got = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, min($0.count, remaining)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw BackupError("\(source) changed while the backup read it (shorter than when it was listed)")
            }
            try chunk.withUnsafeBufferPointer { try append(UnsafeBufferPointer(rebasing: $0[0..<got])) }
            remaining -= got
        }
        try pad(size)
        digest?.update(expected)
    }

    /// The SHA-256 of everything written so far; later bytes are not hashed.
    func seal() -> String {
        let value = digest?.finalize() ?? ""
        digest = nil
        return value
    }

    /// The end-of-archive blocks, written out of the buffer (not yet flushed to the disk: `sync`).
    func finish() throws {
        try append([UInt8](repeating: 0, count: Self.blockSize * 2))
        try flush()
    }

    /// The flush to the disk, and the close, started on a thread of their own (`ArchiveFlush`).
    func startFlush() -> ArchiveFlush {
        let flush = ArchiveFlush(descriptor: descriptor, path: path)
        descriptor = -1
        return flush
    }

    private func pad(_ size: Int) throws {
        let remainder = size % Self.blockSize
        if remainder != 0 { try append([UInt8](repeating: 0, count: Self.blockSize - remainder)) }
    }

    private func appendHashed(_ bytes: [UInt8]) throws {
        digest?.update(bytes)
        try append(bytes)
    }

    private func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try append($0) }
    }

    private func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        bytesWritten += bytes.count
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize / 2 {
            try flush()
            try writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBufferPointer { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var offset = 0
        while offset < bytes.count {
            let wrote = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { throw BackupError("cannot write \(path): \(Self.reason())") }
            offset += wrote
        }
    }

    static func reason() -> String { String(cString: strerror(errno)) }

    /// A new empty file at `path`, readable by its owner only from its creation (`O_EXCL`, mode 0600,
    /// whatever the umask allows more), anything at that name removed first; its descriptor, or -1.
    static func createPrivate(_ path: String) -> Int32 {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 { fchmod(descriptor, 0o600) }
        return descriptor
    }

    /// A new folder of the owner's alone under `parent`, named `prefix` and six random characters
    /// (`mkdtemp`): not a name another user could guess and make first.
    static func makePrivateFolder(in parent: String, prefix: String) throws -> String {
        var template = Array((parent + "/" + prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw BackupError("cannot create a folder in \(parent): \(reason())") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A ustar header of a regular file. Sizes past the 11 octal digits (8 GiB) use the base-256
    /// form GNU tar and libarchive read.
    static func header(name: String, size: Int, modificationTime: Int) throws -> [UInt8] {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 100 else { throw BackupError("archive entry name too long: \(name)") }
        var block = [UInt8](repeating: 0, count: blockSize)
        block.replaceSubrange(0..<nameBytes.count, with: nameBytes)
        put(octal: 0o600, width: 8, at: 100, in: &block)
        put(octal: 0, width: 8, at: 108, in: &block)
        put(octal: 0, width: 8, at: 116, in: &block)
        if size < 0o77777777777 {
            put(octal: size, width: 12, at: 124, in: &block)
        } else {
            block[124] = 0x80
            for index in 0..<8 { block[135 - index] = UInt8(truncatingIfNeeded: size >> (8 * index)) }
        }
        put(octal: modificationTime, width: 12, at: 136, in: &block)
        block[156] = UInt8(ascii: "0")
        block.replaceSubrange(257..<265, with: Array("ustar\u{0}00".utf8))
        block.replaceSubrange(265..<268, with: Array("har".utf8))
        block.replaceSubrange(297..<300, with: Array("har".utf8))
        for index in 148..<156 { block[index] = UInt8(ascii: " ") }
        let sum = block.reduce(0) { $0 + Int($1) }
        put(octal: sum, width: 7, at: 148, in: &block)
        return block
    }

    /// `width - 1` octal digits, zero-padded, then a NUL.
    private static func put(octal value: Int, width: Int, at offset: Int, in block: inout [UInt8]) {
        let digits = Array(String(value, radix: 8).utf8)
        let padded = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, width - 1 - digits.count)) + digits
        block.replaceSubrange(offset..<offset + width - 1, with: padded.suffix(width - 1))
        block[offset + width - 1] = 0
    }
}

/// `fsync` and `close` of a written archive on a Dispatch thread: the flush waits on the device while
/// the caller reads the archive back from the page cache to check it.
final class ArchiveFlush: Sendable {
    private let failure = Mutex<String?>(nil)
    private let group = DispatchGroup()
    private let path: String

    init(descriptor: Int32, path: String) {
        self.path = path
        DispatchQueue.global().async(group: group) { [self] in
            if fsync(descriptor) != 0 { failure.withLock { $0 = ArchiveWriter.reason() } }
            close(descriptor)
        }
    }

    /// Waits for the flush; throws when the disk refused it.
    func wait() throws {
        group.wait()
        if let reason = failure.withLock({ $0 }) { throw BackupError("cannot flush \(path) to disk: \(reason)") }
    }
}

/// A backup that could not be made or read, with the message for the operator.
struct BackupError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
