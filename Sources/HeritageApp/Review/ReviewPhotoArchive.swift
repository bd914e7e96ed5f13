import Basics
import CZlib
import FoundationEssentials
import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// `/review/export.zip` (REV-09): the photos of the reports of the dashboard's filter, one folder per
/// report, with `manifest.csv` keyed by report. Deflated and checksummed by zlib (Debian's zlib1g), each
/// photo read from disk in 64 KB pieces and written to a file in the data folder's `exports` that the
/// server then streams: memory stays flat. A photo whose original was removed after its retention is taken from
/// its thumbnail (the manifest says so); one without either is listed as missing.
enum ReviewPhotoArchive {
    /// ZIP without its ZIP64 extension: at most 65,535 entries and 4 GiB.
    static let maxEntries = 65_000

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.export("/export.zip") { request, context, user, _ in
            let query = ReviewQuery(request.query)
            let file = try ExportFile(directory: review.settings.exportsDirectory, suffix: "zip")
            let zip = ZipWriter(file: file, now: WallClock.now())
            let files = PhotoFiles(directory: review.web.photosDirectory)
            var manifest =
                CSV.byteOrderMark
                + CSV.line([
                    "report_id", "local_id", "name", "review_state", "photo_position", "file", "source", "latitude",
                    "longitude", "accuracy_m", "captured_at", "review_state_label",
                ])
            var entries = 0
            try ReviewExports.eachRow(review.store, query.filter) { row in
                for (position, photo) in try review.store.photos(reportID: row.id).enumerated() {
                    guard entries < maxEntries else { throw HTTPError(413) }
                    let original = files.originalPath(photo.localID)
                    let thumbnail = files.thumbnailPath(photo.localID)
                    var source = "original"
                    var path: String? = original
                    if files.size(of: original) == nil {
                        (source, path) = files.size(of: thumbnail) == nil ? ("missing", nil) : ("thumbnail", thumbnail)
                    }
                    var name = ""
                    if let path {
                        let type = ReviewReportScreen.imageType(atPath: path) ?? "image/jpeg"
                        let suffix = type == "image/png" ? "png" : type == "image/webp" ? "webp" : "jpg"
                        name = "report-\(row.id)/\(position + 1)-\(photo.localID).\(suffix)"
                        try zip.add(name: name, contentsOf: path)
                        entries += 1
                    }
                    manifest += CSV.line([
                        .number(String(row.id)), .text(row.localID), .text(row.name ?? ""), .text(row.review),
                        .number(String(position + 1)), .text(name), .text(source),
                        .number(photo.latitude.map { String($0) } ?? ""),
                        .number(photo.longitude.map { String($0) } ?? ""),
                        .number(photo.accuracy.map { String($0) } ?? ""), .text(photo.capturedAt ?? ""),
                        .text(ReviewLabels.reviewState(row.review, context.messages)),
                    ])
                }
            }
            try zip.add(name: "manifest.csv", bytes: manifest)
            try zip.finish()
            try review.store.appendAudit(
                AuditEntry(at: WallClock.now(), actor: user.email, action: "export_zip", detail: query.queryString))
            return try file.response(request, context, type: "application/zip", name: "photos.zip")
        }
    }
}

/// A ZIP archive (APPNOTE 6.3: local headers with a data descriptor, the central directory, its end
/// record), its entries deflated by zlib with their CRC-32 from zlib, written to an `ExportFile`.
final class ZipWriter {
    struct Entry {
        var name: [UInt8]
        var crc: UInt32
        var compressed: UInt32
        var size: UInt32
        var offset: UInt32
    }

    let file: ExportFile
    private var entries: [Entry] = []
    private let time: UInt16
    private let date: UInt16

    init(file: ExportFile, now: Double) {
        self.file = file
        var seconds = time_t(now)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        time = UInt16((parts.tm_hour << 11) | (parts.tm_min << 5) | (parts.tm_sec / 2))
        date = UInt16(((max(parts.tm_year, 80) - 80) << 9) | ((parts.tm_mon + 1) << 5) | parts.tm_mday)
    }

    func add(name: String, bytes: [UInt8]) throws {
        var offset = 0
        try add(name: name) { buffer in
            let count = min(buffer.count, bytes.count - offset)
            for index in 0..<count { buffer[index] = bytes[offset + index] }
            offset += count
            return count
        }
    }

    func add(name: String, contentsOf path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw HTTPError(500) }
        defer { close(descriptor) }
        try add(name: name) { buffer in
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw HTTPError(500) }
            return count
        }
    }

    /// One entry: its local header, the deflated bytes `next` fills in (0 at the end), the descriptor.
    private func add(name: String, _ next: (inout [UInt8]) throws -> Int) throws {
        guard entries.count < 65_535, file.written < 0xFFFF_0000 else { throw HTTPError(413) }
        let nameBytes = Array(name.utf8)
        let offset = UInt32(file.written)
        var header: [UInt8] = []
        header.le32(0x0403_4B50)
        header.le16(20)
        header.le16(0x0808)  // sizes in the data descriptor; UTF-8 names
        header.le16(8)  // deflate
        header.le16(time)
        header.le16(date)
        header.le32(0)
        header.le32(0)
        header.le32(0)
        header.le16(UInt16(nameBytes.count))
        header.le16(0)
        try file.write(header + nameBytes)

        var stream = z_stream()
        guard har_deflate_init_raw(&stream, 6) == Z_OK else { throw HTTPError(500) }
        defer { deflateEnd(&stream) }
        var input = [UInt8](repeating: 0, count: 1 << 16)
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var crc = crc32(0, nil, 0)
        var size = 0
        var compressed = 0
        var finished = false
        while !finished {
            let count = try next(&input)
            size += count
            let flush = count == 0 ? Z_FINISH : Z_NO_FLUSH
            try input.withUnsafeMutableBufferPointer { inBuffer in
                guard let inBase = inBuffer.baseAddress else { throw HTTPError(500) }
                crc = crc32(crc, inBase, uInt(count))
                stream.next_in = inBase
                stream.avail_in = uInt(count)
                repeat {
                    let (status, produced) = output.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int) in
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = uInt(outBuffer.count)
                        let status = deflate(&stream, flush)
                        return (status, outBuffer.count - Int(stream.avail_out))
                    }
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                        throw HTTPError(500)
                    }
                    if produced > 0 { try file.write(Array(output[0..<produced])) }
                    compressed += produced
                    if status == Z_STREAM_END { finished = true }
                } while stream.avail_out == 0 || (flush == Z_FINISH && !finished)
            }
        }
        guard size < 0xFFFF_FFFF, compressed < 0xFFFF_FFFF else { throw HTTPError(413) }
        var descriptor: [UInt8] = []
        descriptor.le32(0x0807_4B50)
        descriptor.le32(UInt32(crc))
        descriptor.le32(UInt32(compressed))
        descriptor.le32(UInt32(size))
        try file.write(descriptor)
        entries.append(
            Entry(
                name: nameBytes, crc: UInt32(crc), compressed: UInt32(compressed), size: UInt32(size), offset: offset))
    }

    /// The central directory and its end record.
    func finish() throws {
        guard file.written < 0xFFFF_0000 else { throw HTTPError(413) }
        let start = UInt32(file.written)
        var directory: [UInt8] = []
        for entry in entries {
            directory.le32(0x0201_4B50)
            directory.le16(20)
            directory.le16(20)
            directory.le16(0x0808)
            directory.le16(8)
            directory.le16(time)
            directory.le16(date)
            directory.le32(entry.crc)
            directory.le32(entry.compressed)
            directory.le32(entry.size)
            directory.le16(UInt16(entry.name.count))
            directory.le16(0)
            directory.le16(0)
            directory.le16(0)
            directory.le16(0)
            directory.le32(0)
            directory.le32(entry.offset)
            directory += entry.name
        }
        var end: [UInt8] = []
        end.le32(0x0605_4B50)
        end.le16(0)
        end.le16(0)
        end.le16(UInt16(entries.count))
        end.le16(UInt16(entries.count))
        end.le32(UInt32(directory.count))
        end.le32(start)
        end.le16(0)
        try file.write(directory + end)
    }
}

extension [UInt8] {
    fileprivate mutating func le16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func le32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
