import Glibc

/// Finds and reads template files with POSIX calls (this target does not need Foundation).
enum TemplateFiles {
    /// Paths relative to `directory` of every file ending in `.\(fileExtension)`, sorted.
    static func find(in directory: String, fileExtension: String) throws -> [String] {
        var found: [String] = []
        try walk(directory, relative: "", fileExtension: "." + fileExtension, into: &found)
        return found.sorted()
    }

    private static func walk(_ directory: String, relative: String, fileExtension: String, into found: inout [String])
        throws
    {
        guard let stream = opendir(directory) else {
            throw MustacheError(.unreadable(systemError()), template: relative, file: directory)
        }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            // Hidden files include editors' swap files and "." / "..".
            if name.hasPrefix(".") { continue }
            let path = directory + "/" + name
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFDIR {
                try walk(path, relative: relativePath, fileExtension: fileExtension, into: &found)
            } else if status.st_mode & S_IFMT == S_IFREG, name.hasSuffix(fileExtension) {
                found.append(relativePath)
            }
        }
    }

    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else {
            throw MustacheError(.unreadable(systemError()), template: path, file: path)
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if count < buffer.count {
                if ferror(file) != 0 {
                    throw MustacheError(.unreadable(systemError()), template: path, file: path)
                }
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
