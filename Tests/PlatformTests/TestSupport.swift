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

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "platform-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
