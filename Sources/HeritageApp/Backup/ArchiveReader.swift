import FoundationEssentials
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a backup archive (ustar) as a stream, keeping the archive's checksum until `seal()` the way
/// `ArchiveWriter` makes it (header blocks, in-memory entries, each file's digest via `record`).
/// Knows nothing of what the entries mean (`BackupReader` does); tells a cut-off file (`truncated`)
/// from one that is not an archive (`notABackup`).
final class ArchiveReader {
    struct Entry {
        let name: String
        let size: Int
    }

    let path: String
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private var start = 0
    private var end = 0
    private var digest: SHA256Stream? = SHA256Stream()

    init(path: String) throws(BackupFailure) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable("cannot open \(path): \(ArchiveWriter.reason())") }
    }

    deinit { close(descriptor) }

    /// The next entry's header; nil at the end-of-archive block.
    func next() throws(BackupFailure) -> Entry? {
        var block: [UInt8] = []
        try read(ArchiveWriter.blockSize, hashed: true) { block.append(contentsOf: $0) }
        if block.allSatisfy({ $0 == 0 }) { return nil }
        let stored = Self.octal(block[148..<156])
        for index in 148..<156 { block[index] = UInt8(ascii: " ") }
        guard stored == block.reduce(0, { $0 + Int($1) }), block[257..<262].elementsEqual("ustar".utf8) else {
            throw .notABackup("\(path) is not a har backup (an archive header is damaged or missing)")
        }
        let name = String(decoding: block[0..<100].prefix { $0 != 0 }, as: UTF8.self)
        let size: Int
        if block[124] & 0x80 != 0 {
            size = block[128..<136].reduce(0) { ($0 << 8) | Int($1) }
        } else {
            size = Self.octal(block[124..<136])
        }
        guard block[156] == UInt8(ascii: "0") || block[156] == 0 else {
            throw .notABackup("\(path): entry \(name) is not a regular file")
        }
        return Entry(name: name, size: size)
    }

    /// A file entry's content, in chunks, then its padding; the caller `record`s the content's digest.
    func content(_ entry: Entry, _ body: (UnsafeBufferPointer<UInt8>) throws(BackupFailure) -> Void)
        throws(BackupFailure)
    {
        try read(entry.size, hashed: false, body)
        try skipPadding(entry)
    }

    /// A file entry's SHA-256, as the writer put it into the archive's checksum.
    func record(digest bytes: [UInt8]) { digest?.update(bytes) }

    /// An entry's content whole (the manifest, the trailer), refused past `limit` bytes.
    func bytes(_ entry: Entry, limit: Int) throws(BackupFailure) -> [UInt8] {
        guard entry.size <= limit else { throw .notABackup("\(path): \(entry.name) is implausibly large") }
        var bytes: [UInt8] = []
        try read(entry.size, hashed: true) { bytes.append(contentsOf: $0) }
        try skipPadding(entry)
        return bytes
    }

    /// Zeros to the next block; anything else is damage the checksum would not see.
    private func skipPadding(_ entry: Entry) throws(BackupFailure) {
        let remainder = entry.size % ArchiveWriter.blockSize
        guard remainder != 0 else { return }
        var clean = true
        try read(ArchiveWriter.blockSize - remainder, hashed: false) { clean = clean && !$0.contains { $0 != 0 } }
        guard clean else { throw .checksumMismatch("\(path): damaged padding after \(entry.name)") }
    }

    /// The SHA-256 of everything read so far; later bytes are not hashed.
    func seal() -> String {
        let value = digest?.finalize() ?? ""
        digest = nil
        return value
    }

    private func read(
        _ count: Int, hashed: Bool, _ body: (UnsafeBufferPointer<UInt8>) throws(BackupFailure) -> Void
    ) throws(BackupFailure) {
        var remaining = count
        while remaining > 0 {
            if start == end { try fill() }
            let take = min(remaining, end - start)
            let range = start..<start + take
            start += take
            remaining -= take
            let digest = hashed ? digest : nil
            var failure: BackupFailure?
            buffer.withUnsafeBufferPointer { whole in
                let part = UnsafeBufferPointer(rebasing: whole[range])
                digest?.update(part)
                do throws(BackupFailure) { try body(part) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    private func fill() throws(BackupFailure) {
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw .unreadable("cannot read \(path): \(ArchiveWriter.reason())") }
            guard got > 0 else { throw .truncated("\(path) ends early: the backup is cut off (incomplete copy?)") }
            start = 0
            end = got
            return
        }
    }

    private static func octal(_ field: ArraySlice<UInt8>) -> Int {
        var value = 0
        for byte in field {
            if byte == 0 || byte == UInt8(ascii: " ") {
                if value > 0 { break } else { continue }
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7") else { return -1 }
            value = value * 8 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
