import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where the package and the built `har` are, and scratch files for tests.
enum TestPaths {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The `har` executable built beside this test bundle (same build folder, whatever scratch path).
    static let harExecutable: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let exe = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        var url = URL(fileURLWithPath: exe)
        while url.path != "/" && !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("har").path) {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("har").path
    }()

    /// A new empty folder under /tmp.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/har-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }

    static func temporaryFile(contents: String, name: String = "config.json") throws -> String {
        let path = try temporaryDirectory() + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)) else {
            throw POSIXError(.EIO)
        }
        return path
    }
}
