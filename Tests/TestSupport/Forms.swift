import Foundation

/// Form bodies as browsers and curl write them.
public enum FormEncoding {
    /// `application/x-www-form-urlencoded`: names and values percent-encoded, spaces as `%20`.
    public static func urlencoded(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    public static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// One part of a multipart/form-data body: a text field or a file.
public struct MultipartPart: Sendable {
    public var name: String
    public var filename: String?
    public var contentType: String?
    public var bytes: [UInt8]

    public static func field(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, filename: nil, contentType: nil, bytes: Array(value.utf8))
    }

    public static func file(_ name: String, filename: String, contentType: String, bytes: [UInt8]) -> MultipartPart {
        MultipartPart(name: name, filename: filename, contentType: contentType, bytes: bytes)
    }

    /// A file part read from disk; its type from the argument, else guessed from the extension as curl does.
    public static func file(_ name: String, path: String, contentType: String? = nil) throws -> MultipartPart {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let filename = URL(fileURLWithPath: path).lastPathComponent
        return .file(name, filename: filename, contentType: contentType ?? guessType(filename), bytes: bytes)
    }

    static func guessType(_ filename: String) -> String {
        switch URL(fileURLWithPath: filename).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "gif": "image/gif"
        case "txt": "text/plain"
        case "html", "htm": "text/html"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    static func body(_ parts: [MultipartPart], boundary: String) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let contentType = part.contentType { head += "Content-Type: \(contentType)\r\n" }
            body += Array((head + "\r\n").utf8) + part.bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }
}
