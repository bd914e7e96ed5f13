import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Room for uploads: the temporary folder, where bodies land while they arrive, has
/// a total cap, and uploads stop while the disk they land on (and keep their photos on), or the data
/// folder's, has less free space than a floor, so a flood of uploads can never fill the disk the
/// database or the photos live on. Checked on a request's head, before any of its body is read.
struct UploadRoom: Sendable {
    /// Where this node's uploads are spooled (`Configuration.uploadsDirectory`: the data folder's `tmp`,
    /// or with a shared `photo_dir` this node's folder beside the photos). Nothing else is written
    /// there: its regular files are uploads in progress.
    let temporaryDirectory: String
    /// Most bytes the temporary folder may hold, the incoming body counted.
    let temporaryMaxBytes: Int
    let dataDirectory: String
    /// Uploads are refused while either folder's file system has less free space than this.
    let minimumFreeBytes: Int

    enum Refusal: Equatable {
        case temporaryFolderFull
        case diskNearlyFull
    }

    /// Why an upload of `incoming` bytes cannot be taken now; nil when it can.
    func refusal(incoming: Int) -> Refusal? {
        for folder in [temporaryDirectory, dataDirectory] {
            if let free = Self.freeBytes(on: folder), free - incoming < minimumFreeBytes { return .diskNearlyFull }
        }
        if Self.bytes(in: temporaryDirectory) + incoming > temporaryMaxBytes { return .temporaryFolderFull }
        return nil
    }

    /// Bytes available to this user on the file system holding `path`.
    static func freeBytes(on path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) &* Int(info.f_frsize)
    }

    /// The total size of the regular files directly in `folder` (uploads are spooled flat there).
    static func bytes(in folder: String) -> Int {
        guard let directory = opendir(folder) else { return 0 }
        defer { closedir(directory) }
        var total = 0
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            if stat(folder + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { total += Int(info.st_size) }
        }
        return total
    }
}
