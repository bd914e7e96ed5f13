import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// The backups' SQL about rows (counts, snapshots' photo rows, the restore's rewrites) is in `Stores/`,
/// written once for both engines (`BackupSnapshotSQL`, `RestoreReconciliation`); what `Backup/` keeps
/// reads only the engine's catalogue or functions (`sqlite_schema`, `pg_*`, `sqlite_version()`, …), as
/// docs/DATA.md lists. A statement on the application's tables written in `Backup/` fails here.
struct BackupSQLPlacementTests {
    static let folder = TestPaths.packageRoot + "/Sources/HeritageApp/Backup"

    /// Each line of `Backup/` that opens a statement, with its file.
    static func statementLines() throws -> [(file: String, line: String)] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        var found: [(String, String)] = []
        for file in files.sorted() {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.range(of: #"\b(SELECT|UPDATE|INSERT INTO|DELETE FROM)\b"#, options: .regularExpression) != nil {
                    found.append((file, String(line)))
                }
            }
        }
        return found
    }

    @Test func backupFolderWritesNoRowsAndReadsOnlyTheCatalogue() throws {
        let lines = try Self.statementLines()
        #expect(!lines.isEmpty, "the scan finds the catalogue reads that stay")
        for (file, line) in lines {
            #expect(
                line.range(of: #"\b(UPDATE|INSERT INTO|DELETE FROM)\b"#, options: .regularExpression) == nil,
                "\(file) changes rows: \(line)")
            if let from = line.range(of: #"\bFROM\s+[a-z_]+"#, options: .regularExpression) {
                let table = line[from].split(separator: " ").last.map(String.init) ?? ""
                #expect(
                    table == "sqlite_schema" || table.hasPrefix("pg_"),
                    "\(file) reads the application's table \(table): \(line)")
            } else {
                #expect(
                    line.range(of: #"SELECT [a-z_]+\(\)"#, options: .regularExpression) != nil
                        || line.hasSuffix("SELECT k.kind || e.extname FROM pg_extension e"),
                    "\(file): \(line)")
            }
        }
    }
}
