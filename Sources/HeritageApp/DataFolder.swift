import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The data folder holds the database, uploads in progress and generated keys: private to the
/// server's user (0700), never under the web root.
enum DataFolder {
    static func prepare(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw ConfigurationError("data folder \(path) is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError("cannot create data folder \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Empties a folder of leftovers (uploads cut short by a crash).
    static func removeContents(of path: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names { unlink(path + "/" + name) }
    }
}
