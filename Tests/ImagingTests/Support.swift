import CVips
import Glibc
import Imaging
@_exported import TestSupport

extension TemporaryDirectory {
    /// A gradient image written by libvips (JPEG without metadata, PNG or WebP).
    @discardableResult
    func image(_ name: String, width: Int, height: Int, format: ImageFormat, alpha: Bool = false) -> String {
        Imaging.initialize()
        let target = file(name)
        var image: OpaquePointer?
        guard har_vips_test_image(&image, Int32(width), Int32(height), alpha ? 4 : 3) == 0, let image else {
            return target
        }
        defer { har_vips_unref(image) }
        let code: Int32 =
            switch format {
            case .jpeg: 0
            case .png: 1
            case .webp: 2
            }
        _ = har_vips_test_save(image, target, code)
        return target
    }
}

/// Big- or little-endian field encoding for hand-made TIFF blocks.
struct TIFFBuilder {
    struct Field {
        let tag: Int
        let type: Int
        let count: Int
        let data: [UInt8]
    }

    let bigEndian: Bool

    func u16(_ value: Int) -> [UInt8] {
        let bytes = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return bigEndian ? bytes : bytes.reversed()
    }

    func u32(_ value: Int) -> [UInt8] {
        let bytes = [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) }
        return bigEndian ? bytes : bytes.reversed()
    }

    func short(_ tag: Int, _ value: Int) -> Field { Field(tag: tag, type: 3, count: 1, data: u16(value) + [0, 0]) }
    func byte(_ tag: Int, _ value: Int) -> Field { Field(tag: tag, type: 1, count: 1, data: [UInt8(value), 0, 0, 0]) }
    func ascii(_ tag: Int, _ text: String) -> Field {
        let bytes = Array(text.utf8) + [0]
        return Field(tag: tag, type: 2, count: bytes.count, data: bytes)
    }
    func rationals(_ tag: Int, _ values: [(Int, Int)]) -> Field {
        Field(tag: tag, type: 5, count: values.count, data: values.flatMap { u32($0.0) + u32($0.1) })
    }

    /// IFD0 (`ifd0` plus pointers to the GPS and Exif IFDs when given), each IFD followed by its data.
    func tiff(ifd0: [Field], gps: [Field]? = nil, exif: [Field]? = nil) -> [UInt8] {
        func size(_ fields: [Field]) -> Int {
            2 + fields.count * 12 + 4 + fields.reduce(0) { $0 + ($1.data.count > 4 ? ($1.data.count + 1) & ~1 : 0) }
        }
        var first = ifd0
        let pointerCount = (gps == nil ? 0 : 1) + (exif == nil ? 0 : 1)
        let ifd0Size = size(ifd0) + pointerCount * 12
        var next = 8 + ifd0Size
        var rest: [[Field]] = []
        if let gps {
            first.append(Field(tag: 0x8825, type: 4, count: 1, data: u32(next)))
            next += size(gps)
            rest.append(gps)
        }
        if let exif {
            first.append(Field(tag: 0x8769, type: 4, count: 1, data: u32(next)))
            rest.append(exif)
        }
        var out = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        for fields in [first] + rest {
            out += ifd(fields.sorted { $0.tag < $1.tag }, at: out.count)
        }
        return out
    }

    private func ifd(_ fields: [Field], at offset: Int) -> [UInt8] {
        var head = u16(fields.count)
        var data: [UInt8] = []
        let dataStart = offset + 2 + fields.count * 12 + 4
        for field in fields {
            head += u16(field.tag) + u16(field.type) + u32(field.count)
            if field.data.count <= 4 {
                head += field.data + [UInt8](repeating: 0, count: 4 - field.data.count)
            } else {
                head += u32(dataStart + data.count)
                data += field.data + (field.data.count.isMultiple(of: 2) ? [] : [0])
            }
        }
        return head + u32(0) + data
    }
}

/// A JPEG with an APP1 Exif segment holding `tiff` inserted right after SOI.
func splice(exif tiff: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
}

/// CRC-32 (ISO-HDLC, as in PNG chunks).
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    let crc = crc32(body)
    return bigEndian32(data.count) + body + bigEndian32(Int(crc))
}

func bigEndian32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }

/// xorshift64*: deterministic bytes for fuzzing.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
