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

    /// Each line of `Backup/`'s code (not its comments) that holds SQL, with its file.
    static func sqlLines() throws -> [(file: String, line: String)] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        var found: [(String, String)] = []
        for file in files.sorted() {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.range(
                    of: #"\b(SELECT|UPDATE|INSERT INTO|DELETE FROM|FROM|JOIN)\b"#, options: .regularExpression)
                    != nil
                {
                    found.append((file, String(line)))
                }
            }
        }
        return found
    }

    @Test func backupFolderWritesNoRowsAndReadsOnlyTheCatalogue() throws {
        let lines = try Self.sqlLines()
        #expect(lines.count >= 5, "the scan finds the catalogue reads that stay")
        for (file, line) in lines {
            #expect(
                line.range(of: #"\b(UPDATE|INSERT INTO|DELETE FROM)\b"#, options: .regularExpression) == nil,
                "\(file) changes rows: \(line)")
            // Every table read is the engine's catalogue (or a literal list of values), never an application
            // table or an interpolated name.
            var rest = line[...]
            while let read = rest.range(of: #"\b(FROM|JOIN)\s+\S+"#, options: .regularExpression) {
                let table = line[read].split(separator: " ").last.map(String.init) ?? ""
                #expect(
                    table == "sqlite_schema" || table.hasPrefix("pg_") || table == "(VALUES",
                    "\(file) reads \(table), not the engine's catalogue: \(line)")
                rest = line[read.upperBound...]
            }
        }
    }
}
