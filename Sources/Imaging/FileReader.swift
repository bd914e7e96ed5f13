#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random-access reads of a file (pread), for the magic bytes and the metadata segments: the image data
/// itself is never read here.
struct FileReader: ~Copyable {
    private let descriptor: Int32
    let size: Int

    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at `offset` (fewer at the end of the file, none past it or on error).
    func read(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        var bytes = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + filled }, wanted - filled, off_t(offset + filled))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return filled == wanted ? bytes : Array(bytes.prefix(filled))
    }

    /// Exactly `count` bytes at `offset`, or nil.
    func readExactly(at offset: Int, count: Int) -> [UInt8]? {
        let bytes = read(at: offset, count: count)
        return bytes.count == count ? bytes : nil
    }
}
