import Foundation

/// Paths and helpers shared by the tests.
enum TestSupport {
    /// The package root, found from this file's path (Tests/PlatformTests/TestSupport.swift).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    static var signatureVectorsURL: URL {
        packageRoot.appendingPathComponent("../shared/vectors/signature.json").standardizedFileURL
    }

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            out.append(UInt8(nibble(high) << 4 | nibble(low)))
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: c - UInt8(ascii: "A") + 10
        }
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "platform-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
