import Glibc

/// A fresh directory under /tmp, removed (with its files) when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/har-storage-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        path = created ?? "/tmp/har-storage-test-fallback"
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        _ = system("rm -rf '\(path)'")
    }

    func write(_ bytes: [UInt8], to name: String) {
        guard let file = fopen(self.file(name), "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
}
