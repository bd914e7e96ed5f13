// A file under the temporary directory written with plain POSIX calls as bytes arrive, so an upload
// never sits in memory. Owned by one request on one MHD thread at a time.
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

    /// False when the disk refused the bytes (full, quota): the caller fails the request.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard descriptor >= 0, var base = bytes.baseAddress else { return bytes.isEmpty }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            remaining -= written
            base += written
        }
        size += bytes.count
        return true
    }

    /// Closes the descriptor; the file stays for the handler.
    func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Closes and deletes the file if it is still there (the handler may have moved it away).
    func remove() {
        close()
        if access(path, F_OK) == 0 { unlink(path) }
    }

    deinit { close() }
}
