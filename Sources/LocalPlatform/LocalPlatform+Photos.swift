import Basics
import FoundationEssentials
import HTTPServer
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

extension LocalPlatform {
    /// `POST har/report/{id}/photo`: one image file part, optional text parts for where and when.
    func uploadPhoto(_ request: Request, reportID: String) throws(Refusal) -> Response {
        let caller = try authenticate(request, body: .multipart, needsSession: true)
        _ = try ownedReport(id: reportID, caller: caller)
        guard request.files.count == 1, let file = request.files.first else {
            throw .invalidArgument("the body must hold exactly one file part")
        }
        guard file.size <= configuration.photoLimitBytes else { throw .tooLarge(limit: configuration.photoLimitBytes) }
        guard let contentType = Self.imageType(ofFileAt: file.path) else {
            throw .invalidArgument("the file is not a JPEG, PNG or WebP image")
        }
        let place = try Self.photoFields(request.formFields)
        let sha256: String
        do {
            sha256 = try SHA256Stream.hashFile(at: file.path)
        } catch {
            throw .internalError("cannot read the uploaded file")
        }
        // The same photo, fields and report make the same request, whatever the multipart boundary.
        let fields = request.formFields.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: "\n")
        let fingerprint = SHA256Stream.hash(Array("photo \(reportID)\n\(sha256)\n\(fields)".utf8))
        return try idempotent(request, caller: caller, fingerprint: fingerprint) { () throws(Refusal) -> Response in
            let id = Self.newID()
            let path = try keep(file, as: id + "." + MultipartBody.fileExtension(for: contentType))
            let time = now()
            let record = PhotoRecord(
                id: id, reportID: reportID, path: path, contentType: contentType, size: file.size, sha256: sha256,
                latitude: place.latitude, longitude: place.longitude, accuracy: place.accuracy,
                altitude: place.altitude, capturedAt: place.capturedAt, creationTime: time)
            try stored { try store.insertPhoto(record) }
            return try json(UploadedPhoto(photoID: id, reportID: reportID, creationTime: time))
        }
    }

    struct PhotoPlace {
        var latitude, longitude, accuracy, altitude: Double?
        var capturedAt: String?
    }

    static func photoFields(_ formFields: [(name: String, value: String)]) throws(Refusal) -> PhotoPlace {
        var place = PhotoPlace()
        func number(_ field: (name: String, value: String), _ range: ClosedRange<Double>) throws(Refusal) -> Double {
            guard let value = Double(field.value), range.contains(value) else {
                throw .invalidArgument(
                    "field \(field.name) must be a number in \(range.lowerBound)…\(range.upperBound)")
            }
            return value
        }
        for field in formFields {
            switch field.name {
            case "latitude": place.latitude = try number(field, -90...90)
            case "longitude": place.longitude = try number(field, -180...180)
            case "accuracy": place.accuracy = try number(field, 0...1e7)
            case "altitude": place.altitude = try number(field, -1e5...1e5)
            case "captured_at":
                guard let date = ISO8601.parse(field.value) else {
                    throw .invalidArgument("field captured_at must be an ISO 8601 time with offset")
                }
                place.capturedAt = ISO8601.format(date)
            default: throw .invalidArgument("unknown field \(field.name)")
            }
        }
        return place
    }

    /// The image type by its first bytes (the declared type of a part proves nothing).
    static func imageType(ofFileAt path: String) -> String? {
        var head: [UInt8] = []
        try? FileChunks.forEach(path: path, range: nil) { chunk in
            if head.count < 12 { head.append(contentsOf: chunk.prefix(12 - head.count)) }
        }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }

    /// Moves the uploaded file into the data folder (the server deletes what is left in its temporary
    /// folder), copying when the two are on different file systems.
    private func keep(_ file: UploadedFile, as name: String) throws(Refusal) -> String {
        let folder = configuration.dataDirectory + "/photos"
        mkdir(configuration.dataDirectory, 0o700)
        mkdir(folder, 0o700)
        let destination = folder + "/" + name
        if rename(file.path, destination) == 0 { return destination }
        guard errno == EXDEV, Self.copyFile(from: file.path, to: destination) else {
            throw .internalError("cannot store the photo")
        }
        return destination
    }

    private static func copyFile(from source: String, to destination: String) -> Bool {
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { return false }
        var ok = true
        do {
            try FileChunks.forEach(path: source, range: nil) { chunk in
                var offset = 0
                while offset < chunk.count {
                    let written = write(output, chunk.baseAddress.map { $0 + offset }, chunk.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw FileReadError(path: destination, errno: errno) }
                    offset += written
                }
            }
        } catch {
            ok = false
        }
        ok = fsync(output) == 0 && ok
        close(output)
        if !ok { unlink(destination) }
        return ok
    }
}
