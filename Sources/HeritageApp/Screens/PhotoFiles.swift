import FoundationEssentials
import Imaging

#if canImport(Glibc)
    import Glibc
#endif

/// The photo files of the data folder: `photos/<local_id>` (the bytes as received) and
/// `photos/<local_id>.thumb.jpg`. Never under the web root; served only through `PhotoRoutes`.
struct PhotoFiles: Sendable {
    let directory: String

    /// How a photo or thumbnail may be kept by the browser, for its owner's and the review's routes:
    /// only by asking first (the ETag makes that a 304), never from history after a sign-out.
    static let cacheControl = "private, no-cache"

    /// Uploads keeping a photo the page named, by its file's path: one at a time per photo
    /// (`DraftPhotoUpload.answer`).
    static let keeping = KeyedGate()

    func originalPath(_ localID: String) -> String { directory + "/" + localID }
    func thumbnailPath(_ localID: String) -> String { directory + "/" + localID + ".thumb.jpg" }

    /// Only our own UUIDs name files: anything else in a URL could walk out of the folder.
    static func isValidID(_ text: String) -> Bool {
        text.utf8.count == 36
            && text.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                    || byte == UInt8(ascii: "-")
            }
    }

    func prepare() throws { try DataFolder.prepare(directory) }

    /// Checks the upload by decoding it while its thumbnail is made (EXIF orientation applied), then
    /// moves it into place; its size as shown. Both files are flushed, and the folder too, before this
    /// returns: an acknowledged photo survives a power cut. An `ImageError` leaves no file behind.
    func install(upload path: String, as localID: String) throws -> ImageInfo {
        let info = try Imaging.inspect(path: path, thumbnailTo: thumbnailPath(localID), maxSide: 320, quality: 80)
        guard rename(path, originalPath(localID)) == 0 else {
            let reason = String(cString: strerror(errno))
            remove(localID)
            throw PhotoFileError(message: "cannot move the upload into place: \(reason)")
        }
        guard Self.flush(originalPath(localID)), Self.flush(thumbnailPath(localID)), Self.flush(directory) else {
            remove(localID)
            throw PhotoFileError(message: "cannot flush the photo to disk")
        }
        return info
    }

    /// Deletes both files of a photo (missing ones are fine: a crash may have left only one).
    func remove(_ localID: String) {
        guard Self.isValidID(localID) else { return }
        unlink(originalPath(localID))
        unlink(thumbnailPath(localID))
    }

    func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// fsync of a file or folder; false when the disk refused.
    static func flush(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }
}

struct PhotoFileError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
