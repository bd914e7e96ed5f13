import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// `har backup …` run to completion on `dataDir`.
func runBackup(_ arguments: [String], dataDir: String, extra: [String: String] = [:]) async throws -> ProgramResult {
    try await runHar(["backup"] + arguments, environment: ["HAR_DATA_DIR": dataDir].merging(extra) { $1 })
}

/// How many reports of a data folder's database are in `state`.
func reportCount(dataDir: String, state: String) throws -> Int {
    let db = try Database(path: dataDir + "/har.sqlite", mode: .readOnly, create: false)
    defer { db.close() }
    return Int(try db.scalar("SELECT count(*) FROM reports WHERE state = ?", .text(state)).int ?? -1)
}

/// The names of a folder's files, sorted; empty when it does not exist.
func fileNames(in folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
}

/// A backup's manifest, read with `tar` (the archive is plain ustar, as docs/OPERATIONS.md says).
func manifest(of archive: String) async throws -> BackupManifest {
    let listed = try await runProgram("/usr/bin/tar", ["xOf", archive, BackupManifest.entryName])
    guard listed.status == 0 else { throw TestFailure("tar: \(listed.stderr)") }
    return try JSONDecoder().decode(BackupManifest.self, from: Data(listed.stdout.utf8))
}

extension OutboxFixture {
    /// A thumbnail beside each of the first `count` photos, as `PhotoFiles.install` leaves them.
    func addThumbnails(_ count: Int) throws {
        let photos = try pool.read { db in
            try db.query("SELECT local_id FROM photos ORDER BY id LIMIT ?", .integer(Int64(count))).map {
                try $0.string("local_id") ?? ""
            }
        }
        for localID in photos {
            let bytes = Self.jpegBytes(size: 3_000)
            guard
                FileManager.default.createFile(atPath: dataDir + "/photos/\(localID).thumb.jpg", contents: Data(bytes))
            else { throw TestFailure("cannot write a thumbnail") }
        }
    }

    /// `count` more photos of `size` bytes on the first report: big, cheap to make (a pattern, its
    /// first bytes unique), so a backup takes long enough to be killed half-way.
    func addLargePhotos(_ count: Int, size: Int) throws {
        var pattern = [UInt8](repeating: 0, count: size)
        for index in pattern.indices { pattern[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
        let now = Date().timeIntervalSince1970
        try pool.write { db in
            let reportID = try db.scalar("SELECT min(id) FROM reports").int ?? 0
            for position in 0..<count {
                let localID = UUID().uuidString.lowercased()
                var bytes = pattern
                bytes.replaceSubrange(0..<36, with: Array(localID.utf8))
                guard FileManager.default.createFile(atPath: dataDir + "/photos/" + localID, contents: Data(bytes))
                else { throw TestFailure("cannot write a photo") }
                _ = try db.run(
                    """
                    INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, created_at)
                    VALUES (?, ?, ?, 'image/jpeg', ?, ?, ?)
                    """, .integer(reportID), .text(localID), .integer(Int64(100 + position)),
                    .integer(Int64(size)), .text(SHA256Stream.hash(bytes)), .real(now))
            }
        }
    }
}

/// A few people at browsers (`WebReporter`), each with a cookie jar of their own, handed to one task.
final class Volunteers: @unchecked Sendable {
    let reporters: [WebReporter]

    init(count: Int, baseURL: String, folder: String) throws {
        reporters = try (0..<count).map { try WebReporter(baseURL: baseURL, folder: folder + "/volunteer\($0)") }
    }
}
