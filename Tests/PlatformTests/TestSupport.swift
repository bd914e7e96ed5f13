// PlatformTests: the client alone (signature vectors, models, multipart bodies, the error table,
// curl against a closed port), the local platform's handlers as plain functions, and the two together
// over real loopback sockets with the SQLite and in-memory stores.
import Foundation
@_exported import TestSupport

/// Paths and helpers shared by the tests.
enum TestSupport {
    /// The package root, found from this file's path (Tests/PlatformTests/TestSupport.swift).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The repository's copy of the shared vectors (spec/, checked against `../shared` by `SpecCopyTests`).
    static var signatureVectorsURL: URL {
        packageRoot.appendingPathComponent("spec/vectors/signature.json")
    }

    static func bytes(hex: String) -> [UInt8] { Hex.bytes(hex) ?? [] }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> String {
        try TestPaths.temporaryDirectory(prefix: "har-platform-test")
    }
}
