import Basics

#if canImport(Glibc)
    import Glibc
#endif

/// The rows of a CSV file (RFC 4180: comma-separated, fields in double quotes may hold commas, quotes
/// doubled and line breaks), read a buffer at a time: the first row names the columns, each further row
/// is a `SiteRecord` numbered by the line it starts on, its point from the latitude and longitude columns.
final class CSVSites {
    let fileDescriptor: Int32
    let options: SiteImportOptions
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    var position = 0
    var filled = 0
    var consumedBefore = 0
    var line = 1

    static let maxFieldBytes = 1 << 20
    static let maxFields = 1_000

    var offset: Int { consumedBefore + position }

    init(fileDescriptor: Int32, options: SiteImportOptions) {
        self.fileDescriptor = fileDescriptor
        self.options = options
    }

    deinit { buffer.deallocate() }

    func read(_ each: (SiteRecord) throws -> Void) throws {
        guard var header = try row() else { throw SiteImportFailure.file("the CSV file is empty") }
        if let first = header.fields.first, first.hasPrefix("\u{FEFF}") { header.fields[0].removeFirst() }
        let names = header.fields.map { Text.trimmed($0).lowercased() }
        func column(_ candidates: [String], _ what: String, _ option: String) throws -> Int {
            for candidate in candidates {
                if let index = names.firstIndex(of: candidate.lowercased()) { return index }
            }
            throw SiteImportFailure.file(
                "no \(what) column (looked for \(SiteRecord.names(candidates)); see \(option))")
        }
        let latitudeColumn = try column(options.latitudeFields, "latitude", "--lat-field")
        let longitudeColumn = try column(options.longitudeFields, "longitude", "--lon-field")
        while let record = try row() {
            if record.fields == [""] { continue }  // a blank line
            func failure(_ reason: String) -> SiteImportFailure {
                .record(unit: "line", number: record.line, reason: reason)
            }
            guard record.fields.count == names.count else {
                throw failure("\(record.fields.count) fields where the header has \(names.count)")
            }
            let latitudeText = Text.trimmed(record.fields[latitudeColumn])
            let longitudeText = Text.trimmed(record.fields[longitudeColumn])
            guard let latitude = Self.number(latitudeText), let longitude = Self.number(longitudeText) else {
                throw failure(
                    "coordinates are not numbers (latitude \"\(latitudeText.prefix(40))\", longitude \"\(longitudeText.prefix(40))\")"
                )
            }
            do {
                try SiteGeometry.checked(latitude: latitude, longitude: longitude)
            } catch SiteGeometry.Failure.reason(let reason) {
                throw failure(reason)
            }
            var properties: [String: JSONValue] = [:]
            for (index, name) in names.enumerated() { properties[name] = .string(record.fields[index]) }
            try each(
                SiteRecord(
                    number: record.line, unit: "line", properties: properties, latitude: latitude,
                    longitude: longitude, outline: nil))
        }
    }

    /// A decimal number as people write them in a CSV file (no `inf`, no hexadecimal).
    static func number(_ text: String) -> Double? {
        let allowed = Set("0123456789+-.eE".utf8)
        guard !text.isEmpty, text.utf8.allSatisfy({ allowed.contains($0) }) else { return nil }
        return Double(text).flatMap { $0.isFinite ? $0 : nil }
    }

    /// The next row's fields and the line it starts on; nil at the end of the file.
    func row() throws -> (fields: [String], line: Int)? {
        guard try peek() != nil else { return nil }
        let start = line
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        func finish() throws {
            guard let text = String(validating: field, as: UTF8.self) else {
                throw SiteImportFailure.record(unit: "line", number: start, reason: "not UTF-8")
            }
            fields.append(text)
            field.removeAll(keepingCapacity: true)
            guard fields.count <= Self.maxFields else {
                throw SiteImportFailure.record(
                    unit: "line", number: start, reason: "more than \(Self.maxFields) fields")
            }
        }
        while let byte = try next() {
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if try peek() == UInt8(ascii: "\"") {
                        position += 1
                        field.append(byte)
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && field.isEmpty {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                try finish()
            } else if byte == UInt8(ascii: "\n") {
                line += 1
                if field.last == UInt8(ascii: "\r") { field.removeLast() }
                try finish()
                return (fields, start)
            } else {
                field.append(byte)
            }
            guard field.count <= Self.maxFieldBytes else {
                throw SiteImportFailure.record(
                    unit: "line", number: start, reason: "a field longer than \(Self.maxFieldBytes) bytes")
            }
        }
        guard !quoted else {
            throw SiteImportFailure.record(unit: "line", number: start, reason: "a quoted field is never closed")
        }
        if field.last == UInt8(ascii: "\r") { field.removeLast() }
        try finish()
        return (fields, start)
    }

    func peek() throws -> UInt8? {
        if position == filled {
            consumedBefore += filled
            position = 0
            filled = 0
            while true {
                let got = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
                if got >= 0 {
                    filled = got
                    break
                }
                if errno != EINTR {
                    throw SiteImportFailure.file("cannot read the file: \(String(cString: strerror(errno)))")
                }
            }
            if filled == 0 { return nil }
        }
        return buffer[position]
    }

    func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        return byte
    }
}
