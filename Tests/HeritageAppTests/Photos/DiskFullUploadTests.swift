import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// OPS-05: the data folder's disk really full during photo uploads (a small tmpfs, `SmallDisk`, root
/// only: skipped elsewhere), with the free-space reserve (`upload_min_free_bytes`) off so that the
/// disk itself fills rather than the reserve refusing first.
@Suite(.serialized) struct DiskFullUploadTests {
    /// OPS-05: uploads on a full disk are answered 507 with a message in the visitor's language (JSON
    /// for the page's script), never a 500; the database passes `PRAGMA integrity_check`; once there
    /// is room again, the same draft takes photos and the pages work.
    @Test func ops05PhotoUploadsOnAFullDiskAnswer507AndWorkAgainOnceThereIsRoom() async throws {
        guard let disk = try SmallDisk(bytes: 16 << 20) else { return }
        let server = try RunningServer(
            environment: ["HAR_UPLOAD_MIN_FREE_BYTES": "0", "HAR_WORKER_ENABLED": "false"],
            dataDir: disk.path + "/data")
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let photo = try TestImages.jpeg(width: 900, height: 700)
        let first = try await client.upload(draft, file: photo)
        try #require(first.status == 201, "\(first.status) \(first.body.prefix(300))")

        // The disk filled up to leave `room` bytes, from none to a little more than a photo with its
        // thumbnail and its rows: the refusal comes from the server's own check (no room for the
        // photo's declared size) or from the write that found the disk full, never as a 500.
        let filler = disk.path + "/filler"
        let size = Int(try FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int ?? 0)
        var statuses: [Int] = []
        for room in [0, 4096, size / 2, size, size + 8192]
            + stride(from: size + 12_288, through: size + 40_960, by: 2048) + [size + 131_072]
        {
            unlink(filler)
            try fill(disk.path, leaving: room, with: filler)
            let answer = try await client.upload(draft, file: photo)
            statuses.append(answer.status)
            #expect([201, 507].contains(answer.status), "room \(room): \(answer.status) \(answer.body.prefix(300))")
            if answer.status == 507 {
                #expect(answer.body.contains("no_room") && answer.body.contains("room"), "\(answer.body.prefix(300))")
            }
            let list = try await client.get("/reports")
            #expect([200, 507].contains(list.status), "room \(room): the list answers \(list.status)")
            let db = try Database(path: server.dataDir + "/har.sqlite", mode: .readOnly, create: false)
            #expect(try db.scalar("PRAGMA integrity_check").string == "ok", "room \(room)")
            db.close()
        }
        #expect(statuses.first == 507, "no room at all: \(statuses)")

        unlink(filler)
        let again = try await client.upload(draft, file: photo)
        #expect(again.status == 201, "room again: \(again.status) \(again.body.prefix(300))")
        #expect(try await client.get("/reports").status == 200)
        await server.stop()
    }
}

/// Writes `filler` until the disk at `path` has `room` bytes left (to the block).
func fill(_ path: String, leaving room: Int, with filler: String) throws {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { throw TestFailure("statvfs \(path)") }
    let free = Int(info.f_bavail) * Int(info.f_frsize)
    var left = max(free - room, 0)
    let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    defer { close(descriptor) }
    let block = [UInt8](repeating: 1, count: 65_536)
    while left > 0 {
        let wrote = write(descriptor, block, min(left, block.count))
        guard wrote > 0 else { break }
        left -= wrote
    }
}
