import Foundation
import Testing

@testable import HeritageApp

/// No large body before authentication. The photo upload is refused on its head
/// (401, 403, 413, 507) before a byte of its body is sent; other routes take a few KB and no file.
/// Real server, real socket: the body is never sent, so only an answer on the head can arrive.
@Suite struct UploadGateTests {
    /// The head of a 20 MB upload, without its body; the answer to it.
    private func headOnly(
        _ server: RunningServer, draft: String, cookie: String?, csrf: String?, length: Int = 20_000_000
    )
        async throws -> RawResponse
    {
        let port = server.port
        var head = "POST /api/drafts/\(draft)/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        head += "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: \(length)\r\n"
        if let cookie { head += "Cookie: har_session=\(cookie)\r\n" }
        if let csrf { head += "X-CSRF-Token: \(csrf)\r\n" }
        let request = head + "\r\n"
        return try await blocking {
            let socket = try RawConnection(port: port)
            socket.sendAll(request)
            return try socket.readResponse()
        }
    }

    private func temporaryFiles(_ server: RunningServer) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: server.dataDir + "/tmp")) ?? []
    }

    @Test func anUploadIsRefusedOnItsHeadBeforeItsBody() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let session = client.http.cookie("har_session")

        let anonymous = try await headOnly(server, draft: draft, cookie: nil, csrf: nil)
        #expect(anonymous.status == 401)
        #expect(anonymous.text.contains("signed_out"))
        let noToken = try await headOnly(server, draft: draft, cookie: session, csrf: nil)
        #expect(noToken.status == 403)
        #expect(noToken.text.contains(#""error":"csrf""#))
        let wrongToken = try await headOnly(
            server, draft: draft, cookie: session, csrf: String(repeating: "0", count: 64))
        #expect(wrongToken.status == 403)
        let tooLarge = try await headOnly(server, draft: draft, cookie: session, csrf: client.csrf, length: 40 << 20)
        #expect(tooLarge.status == 413)
        #expect(tooLarge.text.contains("This photo is too large to be sent."))
        #expect(temporaryFiles(server).isEmpty)
        // The same client's real upload still goes through.
        #expect(try await client.upload(draft, file: try TestImages.jpeg()).status == 201)
    }

    @Test func formsTakeAFewKilobytesAndNoFile() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let token = try await client.csrf()
        let big = try TestPaths.temporaryFile(
            contents: "_csrf=\(token)&lang=fr&back=" + String(repeating: "x", count: 100_000), name: "body")
        #expect(try await client.post("/lang", [], ["--data-binary", "@" + big]).status == 413)
        let image = try TestImages.jpeg()
        let withFile = try await client.post(
            "/lang", [], ["-F", "_csrf=\(token)", "-F", "lang=fr", "-F", "photo=@\(image);type=image/jpeg"])
        #expect(withFile.status == 413)
        #expect(try await client.post("/lang", [("_csrf", token), ("lang", "fr")]).status == 303)
    }

    @Test func noUploadWhenTheDiskIsNearlyFull() async throws {
        let server = try RunningServer(environment: ["HAR_UPLOAD_MIN_FREE_BYTES": String(1 << 50)])
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let answer = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(answer.status == 507)
        #expect(answer.body.contains("The server has no room for photos right now."))
        #expect(!answer.body.contains(server.dataDir))
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM photos") == "0")
        #expect(try await client.get("/reports").status == 200)  // the rest of the site goes on
    }

    @Test func theTemporaryFolderHasACap() async throws {
        let server = try RunningServer(environment: ["HAR_UPLOAD_TEMP_MAX_BYTES": "200000"])
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        #expect(try await client.upload(draft, file: try TestImages.jpeg()).status == 201)
        // Uploads in progress already hold most of the cap: the next one waits for room.
        try Data(count: 199_800).write(to: URL(fileURLWithPath: server.dataDir + "/tmp/upload-in-progress"))
        let refused = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(refused.status == 507)
        #expect(refused.body.contains("no room for photos"))
    }

    /// With a shared photo folder (several nodes) uploads are spooled beside the photos, in this node's
    /// folder: the cap counts that folder, not the data folder's `tmp`, which holds none of them.
    @Test func theCapCountsTheFolderUploadsLandInWithASharedPhotoFolder() async throws {
        let photos = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: photos) }
        let server = try RunningServer(environment: [
            "HAR_UPLOAD_TEMP_MAX_BYTES": "200000", "HAR_PHOTO_DIR": photos, "HAR_NODE_ID": "node-a",
        ])
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        #expect(try await client.upload(draft, file: try TestImages.jpeg()).status == 201)
        try Data(count: 199_800).write(to: URL(fileURLWithPath: photos + "/tmp/node-a/upload-in-progress"))
        let refused = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(refused.status == 507)
        #expect(refused.body.contains("no room for photos"))
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM photos") == "1")
    }
}

/// An export's file when the export fails before its answer (413 past the ZIP's limits, a deadline, a
/// store error): removed with the object, as the server removes an answered one once it has opened it.
@Suite struct ExportFileTests {
    @Test func aFileNeverAnsweredIsRemovedWhenDropped() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var path = ""
        do {
            let file = try ExportFile(directory: folder, suffix: "csv")
            try file.write(String(repeating: "a,b\r\n", count: 20_000))
            path = file.path
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!path.isEmpty && !FileManager.default.fileExists(atPath: path))
        #expect((try FileManager.default.contentsOfDirectory(atPath: folder)).isEmpty)
    }
}
