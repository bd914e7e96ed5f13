import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The data folder: there (or creatable), writable by this user, private, with room to spare.
enum DataFolderCheck {
    static let subject = "data folder"

    static func run(_ configuration: Configuration) -> [DoctorFinding] {
        let path = configuration.dataDir
        var info = stat()
        guard stat(path, &info) == 0 else {
            return [
                .warn(
                    subject, "\(path) does not exist yet",
                    do: "let har serve create it (systemd's StateDirectory= does for the service), or mkdir -m 0700 it")
            ]
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            return [.fail(subject, "\(path) is not a folder", do: "set data_dir (HAR_DATA_DIR) to a folder")]
        }
        if info.st_mode & S_IWOTH != 0 {
            return [
                .fail(
                    subject, "\(path) can be written by every user (har serve refuses it)",
                    do: "chmod 0700 \(path)")
            ]
        }
        if let problem = writeProblem(in: path) {
            return [
                .fail(
                    subject, "cannot write in \(path): \(problem)",
                    do: "chown -R the user that runs har serve (har for the service) on \(path), or set data_dir")
            ]
        }
        return [.ok(subject, "\(path) is writable"), freeSpace(configuration)]
    }

    /// Writes, syncs and removes a file, as the server's first write would; nil when that worked.
    static func writeProblem(in path: String) -> String? {
        let probe = path + "/.har-doctor-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer {
            close(descriptor)
            unlink(probe)
        }
        let byte: [UInt8] = [0]
        guard write(descriptor, byte, 1) == 1, fsync(descriptor) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Free space against `upload_min_free_bytes` (below it uploads are refused) and the margin that a
    /// migration's snapshot and a backup need: two more copies of the database.
    static func freeSpace(_ configuration: Configuration) -> DoctorFinding {
        let subject = "free space"
        var info = statvfs()
        guard statvfs(configuration.dataDir, &info) == 0 else {
            return .warn(subject, "cannot measure: \(String(cString: strerror(errno)))", do: "check df")
        }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        let database = ["", "-wal"].reduce(Int64(0)) { total, suffix in
            var file = stat()
            return total + (stat(configuration.dataDir + "/har.sqlite" + suffix, &file) == 0 ? Int64(file.st_size) : 0)
        }
        let floor = Int64(configuration.uploadMinFreeBytes)
        let margin = floor + 2 * database
        let said =
            "\(megabytes(free)) free; uploads stop below \(megabytes(floor)), a migration's snapshot "
            + "and a backup need \(megabytes(margin))"
        if free < floor { return .fail(subject, said, do: "free space on that disk or move data_dir") }
        if free < margin { return .warn(subject, said, do: "free space before the next upgrade or backup") }
        return .ok(subject, said)
    }

    static func megabytes(_ bytes: Int64) -> String { "\(bytes / (1 << 20)) MB" }
}
