/// Magic bytes, and where each container keeps its EXIF block: JPEG APP1 "Exif\0\0", PNG eXIf chunk,
/// WebP (RIFF) EXIF chunk. Only headers are read, with a bound on how many segments or chunks are walked.
enum Containers {
    /// EXIF blocks larger than this are ignored (a JPEG APP1 is at most 64 KB anyway).
    static let maximumExifSize = 1 << 20
    /// Segments or chunks walked at most before giving up.
    static let maximumSegments = 4096

    static func format(of reader: borrowing FileReader) -> ImageFormat? {
        let head = reader.read(at: 0, count: 12)
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        return nil
    }

    /// The TIFF bytes of the file's EXIF block, if it has one.
    static func exif(of reader: borrowing FileReader) -> [UInt8]? {
        switch format(of: reader) {
        case .jpeg: jpegExif(reader)
        case .png: pngExif(reader)
        case .webp: webpExif(reader)
        case nil: nil
        }
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// Drops the "Exif\0\0" prefix when present (required in JPEG, tolerated in PNG and WebP).
    private static func tiff(_ payload: [UInt8]) -> [UInt8] {
        payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? Array(payload.dropFirst(6)) : payload
    }

    private static func jpegExif(_ reader: borrowing FileReader) -> [UInt8]? {
        var position = 2
        for _ in 0..<maximumSegments {
            guard let head = reader.readExactly(at: position, count: 2), head[0] == 0xFF else { return nil }
            let marker = head[1]
            switch marker {
            case 0xFF:  // fill byte
                position += 1
                continue
            case 0x01, 0xD0...0xD7:  // standalone markers
                position += 2
                continue
            case 0xD9, 0xDA:  // end of image, start of scan: metadata comes before
                return nil
            default: break
            }
            guard let lengthBytes = reader.readExactly(at: position + 2, count: 2) else { return nil }
            let length = bigEndian(lengthBytes, 0, 2)
            guard length >= 2 else { return nil }
            if marker == 0xE1, length >= 8 + 6,
                let payload = reader.readExactly(at: position + 4, count: length - 2),
                payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0])
            {
                return Array(payload.dropFirst(6))
            }
            position += 2 + length
        }
        return nil
    }

    private static func pngExif(_ reader: borrowing FileReader) -> [UInt8]? {
        var position = 8
        for _ in 0..<maximumSegments {
            guard let head = reader.readExactly(at: position, count: 8) else { return nil }
            let length = bigEndian(head, 0, 4)
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if type == "IEND" { return nil }
            if type == "eXIf" {
                guard length <= maximumExifSize, let payload = reader.readExactly(at: position + 8, count: length)
                else { return nil }
                return tiff(payload)
            }
            position += 12 + length
        }
        return nil
    }

    private static func webpExif(_ reader: borrowing FileReader) -> [UInt8]? {
        var position = 12
        for _ in 0..<maximumSegments {
            guard let head = reader.readExactly(at: position, count: 8) else { return nil }
            let length = littleEndian32(head, 4)
            if head.starts(with: Array("EXIF".utf8)) {
                guard length <= maximumExifSize, let payload = reader.readExactly(at: position + 8, count: length)
                else { return nil }
                return tiff(payload)
            }
            position += 8 + length + (length & 1)
        }
        return nil
    }
}
