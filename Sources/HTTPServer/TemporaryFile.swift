// A file under the temporary directory written with plain POSIX calls as bytes arrive, so an upload
// never sits in memory. Owned by one request on one MHD thread at a time.
import CMicroHTTPD
import Glibc

final class TemporaryFile {
    let path: String
    private(set) var size = 0
    private var descriptor: Int32

    /// Creates a new file with a random name (O_EXCL: never reuses or follows an existing one).
    init?(directory: String, prefix: String) {
        for _ in 0..<8 {
            let candidate = directory + "/" + prefix + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                path = candidate
                descriptor = fd
                return
            }
            if errno != EEXIST { return nil }
        }
        return nil
    }

    /// Bytes wait here and go to the file in writes of `bufferSize`: MHD hands the body over in reads
    /// of its connection buffer (about 16 KB), and one write(2) per read was 13,000 system calls for a
    /// 200 MB upload (strace -c in docs/BENCHMARKS.md). Allocated on the first write, freed
    /// on close: an idle connection holds none of it.
    static let bufferSize = 256 * 1024
    private var buffer: UnsafeMutableRawPointer?
    private var buffered = 0

    /// Every `writebackStep` bytes the disk is asked to start writing them (`har_start_writeback`,
    /// without waiting), so that the handler's fsync at the end waits for the last few MB, not for the
    /// whole file: the 200 MB upload's fsync took 0.10–0.13 s after the last byte. Files
    /// under the step (most photos' first 8 MB) are left to the fsync as before.
    static let writebackStep = 8 * 1024 * 1024
    private var inFile = 0
    private var writebackFrom = 0

    /// False when the disk refused the bytes (full, quota): the caller fails the request.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard descriptor >= 0, let base = bytes.baseAddress else { return bytes.isEmpty }
        size += bytes.count
        if buffered + bytes.count > Self.bufferSize {
            guard flush() else { return false }
            // A chunk as large as the buffer goes straight to the file.
            if bytes.count >= Self.bufferSize { return writeAll(base, bytes.count) }
        }
        if buffer == nil {
            buffer = malloc(Self.bufferSize)
            guard buffer != nil else { return writeAll(base, bytes.count) }
        }
        guard let buffer else { return false }
        (buffer + buffered).copyMemory(from: base, byteCount: bytes.count)
        buffered += bytes.count
        return true
    }

    /// Writes what waits in the buffer; false when the disk refused it.
    private func flush() -> Bool {
        guard buffered > 0, let buffer else { return true }
        let count = buffered
        buffered = 0
        return writeAll(UnsafeRawPointer(buffer), count)
    }

    private func writeAll(_ start: UnsafeRawPointer, _ count: Int) -> Bool {
        var base = start
        var remaining = count
        while remaining > 0 {
            let written = Glibc.write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            remaining -= written
            base += written
        }
        inFile += count
        if inFile - writebackFrom >= Self.writebackStep {
            _ = har_start_writeback(descriptor, Int64(writebackFrom), Int64(inFile - writebackFrom))
            writebackFrom = inFile
        }
        return true
    }

    /// Writes what is buffered and closes the descriptor; the file stays for the handler. False when
    /// the last bytes could not be written (the caller fails the request).
    @discardableResult
    func close() -> Bool {
        var complete = true
        if descriptor >= 0 {
            complete = flush()
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
        if let buffer {
            free(buffer)
            self.buffer = nil
        }
        return complete
    }

    /// Closes and deletes the file if it is still there (the handler may have moved it away).
    func remove() {
        buffered = 0  // nothing of a file about to go needs writing
        close()
        if access(path, F_OK) == 0 { unlink(path) }
    }

    deinit { close() }
}
