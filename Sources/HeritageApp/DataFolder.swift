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
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw ConfigurationError("data folder \(path) is not a folder")
            }
            try refuseWorldWritable(path, info, what: "data folder")
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError("cannot create data folder \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The database file: made 0600 before SQLite first opens it (SQLite would make it 0644 under the
    /// usual umask, and its -wal and -shm files take the main file's mode), refused when others may
    /// write it.
    static func preparePrivateFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        var info = stat()
        guard errno == EEXIST, stat(path, &info) == 0 else {
            throw ConfigurationError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        try refuseWorldWritable(path, info, what: "database")
    }

    /// Takes group and others' bits off an existing file; nothing when it is absent.
    static func makePrivate(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        chmod(path, info.st_mode & 0o700)
    }

    /// Anyone on the machine could replace what the server trusts: stop with the fix instead.
    private static func refuseWorldWritable(_ path: String, _ info: stat, what: String) throws {
        guard info.st_mode & S_IWOTH == 0 else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw ConfigurationError(
                "\(what) \(path) can be written by every user of this machine (mode \(mode)); "
                    + "run chmod o-w on it (the data folder is normally 0700, the database 0600)")
        }
    }

    /// Empties a folder of leftovers (uploads cut short by a crash).
    static func removeContents(of path: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names { unlink(path + "/" + name) }
    }
}

/// One `har serve` per data folder: two would send the same queued reports twice (the worker's
/// in-memory bookkeeping is per process). An exclusive lock on `har.lock`, held for the process's life
/// (the kernel drops it when the process ends, even after kill -9).
final class DataFolderLock: Sendable {
    private let descriptor: Int32

    init(dataDir: String) throws {
        let path = dataDir + "/har.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ConfigurationError("another har serve is already using the data folder \(dataDir)")
        }
        self.descriptor = descriptor
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
