// Reads one request body as it arrives: counts it against the limits, feeds forms to MHD's post
// processor (64 KiB buffer), streams multipart file parts to temporary files, keeps small non-form
// bodies (JSON) in memory, and optionally spools the raw bytes. Used only on the connection's MHD thread.
import CMicroHTTPD
import Glibc

final class BodyReader {
    struct Limits {
        var maxBodyBytes: Int
        var maxFileBytes: Int
        var maxFiles: Int
        /// Bounds the text fields' values and names together.
        var maxInMemoryBytes: Int
        var maxFields: Int
    }

    private struct FilePart {
        var fieldName: String
        var fileName: String?
        var contentType: String?
        var file: TemporaryFile
    }

    let limits: Limits
    let directory: String
    /// The status to answer with once something went wrong (400 malformed, 413 too large, 500 disk).
    private(set) var failure: Int?
    private(set) var received = 0
    private(set) var fields: [(name: String, value: [UInt8])] = []
    private var fieldBytes = 0
    private var fileParts: [FilePart] = []
    private var partOpen = false
    /// A text value is being received (its next chunk may continue it); a file part closes it.
    private var textPartOpen = false
    private(set) var rawBody: [UInt8] = []
    private(set) var spool: TemporaryFile?
    private var postProcessor: OpaquePointer?
    private let isForm: Bool
    /// For multipart bodies: "--boundary--" must have been seen, else the body was cut short or its
    /// boundary did not match (MHD's parser quietly skips what it cannot place).
    private var closingDelimiter: [UInt8]?
    private var tail: [UInt8] = []

    /// `contentType` picks the parser; a form body MHD cannot parse (no boundary) fails with 400 at once.
    init(connection: OpaquePointer, contentType: String?, limits: Limits, directory: String, spoolRaw: Bool) {
        self.limits = limits
        self.directory = directory
        let type = contentType?.lowercased() ?? ""
        isForm = type.hasPrefix("multipart/form-data") || type.hasPrefix("application/x-www-form-urlencoded")
        if spoolRaw {
            spool = TemporaryFile(directory: directory, prefix: "har-body")
            if spool == nil { failure = 500 }
        }
        if isForm {
            if type.hasPrefix("multipart/") {
                guard let boundary = contentType.flatMap(BodyReader.boundary), !boundary.isEmpty else {
                    failure = 400
                    return
                }
                closingDelimiter = Array("--\(boundary)--".utf8)
            }
            postProcessor = MHD_create_post_processor(
                connection, 64 * 1024, harPostIterator, Unmanaged.passUnretained(self).toOpaque())
            if postProcessor == nil { failure = 400 }
        }
    }

    /// The boundary parameter of a multipart Content-Type, quotes removed.
    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2,
                parts[0].trimmingCharacters(in: " \t").lowercased() == "boundary"
            else { continue }
            var value = parts[1].trimmingCharacters(in: " \t")
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }

    /// False once the body has to be refused; `failure` says with what.
    func feed(_ data: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        received += data.count
        if received > limits.maxBodyBytes || (spool.map { !$0.write(data) } ?? false) {
            fail(received > limits.maxBodyBytes ? 413 : 500)
            destroyParser()
            return false
        }
        if let postProcessor {
            if let closingDelimiter { rememberTail(data, keeping: closingDelimiter.count + 4) }
            let accepted = data.withMemoryRebound(to: CChar.self) { chars in
                MHD_post_process(postProcessor, chars.baseAddress, chars.count)
            }
            if accepted != MHD_Result.YES {
                fail(failure ?? 400)
                destroyParser()
                return false
            }
        } else if !isForm {
            if received <= limits.maxInMemoryBytes {
                rawBody.append(contentsOf: data)
            } else if spool != nil {
                rawBody = []  // the spooled copy has it all; memory stays bounded
            } else {
                return fail(413)
            }
        }
        return true
    }

    /// Counts bytes dropped after a refusal, so a never-ending body still hits the size limit.
    func discard(_ count: Int) { received += count }

    var isOverBodyLimit: Bool { received > limits.maxBodyBytes }

    /// Ends the body; false when it turned out malformed or incomplete.
    func finish() -> Bool {
        guard failure == nil else { return false }
        // The last bytes of each file leave its buffer here: a disk that refuses them fails the body.
        if spool?.close() == false || fileParts.last?.file.close() == false { return fail(500) }
        if let postProcessor {
            self.postProcessor = nil
            let complete = MHD_destroy_post_processor(postProcessor) == MHD_Result.YES
            if !complete { return fail(400) }
            if let closingDelimiter, !tail.contains(subsequence: closingDelimiter) { return fail(400) }
        }
        return true
    }

    var uploadedFiles: [UploadedFile] {
        fileParts.map {
            UploadedFile(
                fieldName: $0.fieldName, fileName: $0.fileName, contentType: $0.contentType,
                path: $0.file.path, size: $0.file.size)
        }
    }

    /// Frees the parser and deletes every temporary file still where we left it.
    func removeAll() {
        destroyParser()
        removeFiles()
    }

    private func destroyParser() {
        if let postProcessor {
            self.postProcessor = nil
            _ = MHD_destroy_post_processor(postProcessor)
        }
    }

    private func removeFiles() {
        for part in fileParts { part.file.remove() }
        spool?.remove()
    }

    /// Marks the body refused and deletes its files at once. Leaves the parser alone: this may run
    /// inside MHD_post_process (from the iterator), where freeing the parser would pull the rug.
    @discardableResult
    private func fail(_ status: Int) -> Bool {
        if failure == nil { failure = status }
        removeFiles()
        return false
    }

    private func rememberTail(_ data: UnsafeRawBufferPointer, keeping count: Int) {
        tail.append(contentsOf: data.suffix(count))
        if tail.count > count { tail.removeFirst(tail.count - count) }
    }

    /// One chunk of one form value, from the post processor. A value starts at offset 0; MHD may also
    /// report an empty chunk at offset 0 for a part it already announced, which must not start another.
    func receive(key: String, fileName: String?, contentType: String?, data: UnsafeRawBufferPointer, offset: UInt64)
        -> Bool
    {
        if let fileName {
            textPartOpen = false
            let current = fileParts.last
            let continues =
                partOpen && current?.fieldName == key && current?.fileName == fileName
                && (offset > 0 || current?.file.size == 0)
            if !continues {
                if current?.file.close() == false { return fail(500) }
                guard fileParts.count < limits.maxFiles else { return fail(413) }
                guard let file = TemporaryFile(directory: directory, prefix: "har-upload") else { return fail(500) }
                fileParts.append(FilePart(fieldName: key, fileName: fileName, contentType: contentType, file: file))
                partOpen = true
            }
            guard let file = fileParts.last?.file else { return fail(500) }
            if file.size + data.count > limits.maxFileBytes { return fail(413) }
            return file.write(data) ? true : fail(500)
        }
        partOpen = false
        fieldBytes += data.count
        if fieldBytes > limits.maxInMemoryBytes { return fail(413) }
        // A value may come in several chunks, each with its offset in the value. MHD may also announce a
        // part with an empty chunk at offset 0 and then send its first bytes at offset 0 again (seen when
        // the body arrives in small reads). So a chunk continues the last field when it names the same
        // key and starts where that value ends; an empty chunk for the open field adds nothing.
        if let last = fields.last, last.name == key, textPartOpen {
            if data.isEmpty { return true }
            if offset == UInt64(last.value.count) {
                fields[fields.count - 1].value.append(contentsOf: data)
                return true
            }
        }
        // A new field: its name counts against the same budget as the values, and fields are
        // counted (each costs far more than its bytes).
        guard fields.count < limits.maxFields else { return fail(413) }
        fieldBytes += key.utf8.count
        if fieldBytes > limits.maxInMemoryBytes { return fail(413) }
        fields.append((key, Array(data)))
        textPartOpen = true
        return true
    }

    deinit { removeAll() }
}

/// MHD_PostDataIterator: hands each chunk to the BodyReader behind `cls`.
func harPostIterator(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ fileName: UnsafePointer<CChar>?, _ contentType: UnsafePointer<CChar>?, _ transferEncoding: UnsafePointer<CChar>?,
    _ data: UnsafePointer<CChar>?, _ offset: UInt64, _ size: Int
) -> MHD_Result {
    guard let cls, let key else { return MHD_Result.NO }
    let reader = Unmanaged<BodyReader>.fromOpaque(cls).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    let accepted = reader.receive(
        key: String(cString: key), fileName: fileName.map { String(cString: $0) },
        contentType: contentType.map { String(cString: $0) }, data: bytes, offset: offset)
    return accepted ? MHD_Result.YES : MHD_Result.NO
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        for start in 0...(count - subsequence.count)
        where self[start..<(start + subsequence.count)].elementsEqual(subsequence) {
            return true
        }
        return false
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
