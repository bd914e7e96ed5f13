import Foundation
import Testing

/// spec/ holds the repository's own copy of what the tests and docs read from the product's shared
/// folder (the requirements, the platform contract, the signature vectors), so that a clone builds
/// and passes alone. Where that folder is beside the repository (`../shared`), the copy must be the
/// same, byte for byte: a change there is brought here on purpose, never missed.
@Suite struct SpecCopyTests {
    static let spec = TestSupport.packageRoot.appendingPathComponent("spec").path
    static let shared = TestSupport.packageRoot.appendingPathComponent("../shared").standardizedFileURL.path

    static var sharedIsBeside: Bool {
        var folder: ObjCBool = false
        let present = FileManager.default.fileExists(atPath: shared, isDirectory: &folder) && folder.boolValue
        if !present { print("SpecCopyTests: no \(shared) beside the repository; spec/ is not compared") }
        return present
    }

    /// Every file under `folder`, as paths relative to it, sorted.
    static func files(under folder: String) -> [String] {
        let all = FileManager.default.enumerator(atPath: folder)?.allObjects.compactMap { $0 as? String } ?? []
        return all.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder)
                && !isFolder.boolValue
        }.sorted()
    }

    @Test func theCopyHoldsWhatTheTestsAndDocsRead() {
        let copied = Self.files(under: Self.spec)
        for needed in ["platform-contract.md", "requirements.md", "vectors/signature.json"] {
            #expect(copied.contains(needed), "spec/\(needed)")
        }
    }

    @Test(.enabled(if: sharedIsBeside, "no ../shared beside the repository"))
    func theCopyMatchesTheSharedFolderByteForByte() {
        // The copied files, and every vector the shared folder has (a new one is copied too).
        let names = Set(Self.files(under: Self.spec)).union(
            Self.files(under: Self.shared + "/vectors").map { "vectors/" + $0 })
        #expect(!names.isEmpty)
        for name in names.sorted() {
            let ours = FileManager.default.contents(atPath: Self.spec + "/" + name)
            let theirs = FileManager.default.contents(atPath: Self.shared + "/" + name)
            #expect(ours != nil, "spec/\(name) is missing: copy it from ../shared/\(name)")
            #expect(theirs != nil, "../shared/\(name) is gone: spec/\(name) has no original")
            #expect(ours == theirs, "spec/\(name) differs from ../shared/\(name): copy it again")
        }
    }
}
