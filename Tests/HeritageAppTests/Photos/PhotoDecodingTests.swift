import Foundation
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// Photo decoding runs beside the requests, never in their way: uploads hand their photo
/// to the process's photo threads (`Drafts.photoWork`), which run below the requests' CPU priority, and
/// their connections wait suspended, holding no MHD thread. Shown without timing: every photo thread is
/// held in the middle of a job while other requests are made.
@Suite(.serialized) struct PhotoDecodingTests {
    @Test func healthzAndPagesAreAnsweredWhileEveryPhotoThreadIsBusy() async throws {
        let server = try RunningServer()
        let work = server.application.drafts.photoWork
        // Every photo thread busy, more uploads waiting for one, and more than the server's MHD threads.
        let uploads = max(Drafts.photosAtOnce + 2, server.application.configuration.threads + 1)
        var volunteers: [(client: SignedInClient, draft: String)] = []
        for _ in 0..<uploads {
            let client = try await SignedInClient(server)
            volunteers.append((client, try await client.openDraft()))
        }
        let reader = try await SignedInClient(server)
        let photo = try TestImages.jpeg(width: 640, height: 480)
        let hold = work.holdJobs()
        // What each upload needs, as Sendable values (the signed-in client is not).
        let sends = volunteers.map { (http: $0.client.http, csrf: $0.client.csrf, draft: $0.draft) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for send in sends {
                group.addTask {
                    let arguments = [
                        "-X", "POST", "-H", "X-CSRF-Token: \(send.csrf)", "-H", "Accept: application/json",
                        "-F", "photo=@\(photo);type=image/jpeg",
                    ]
                    return try await send.http.curl("/api/drafts/\(send.draft)/photos", arguments).status
                }
            }
            try await waitUntil("every photo thread holds an upload and the others wait for one") {
                hold.held == Drafts.photosAtOnce && work.load.waiting == uploads - Drafts.photosAtOnce
            }
            // New connections, spread over the MHD threads by whichever accepts first: all answered.
            for _ in 0..<(2 * server.application.configuration.threads) {
                let probe = try HTTPClient(baseURL: server.baseURL)
                let health = try await probe.get("/healthz")
                #expect(health.status == 200)
                probe.closeConnection()
            }
            let page = try await reader.get("/reports")
            #expect(page.status == 200)
            #expect(hold.held == Drafts.photosAtOnce)
            hold.open()
            for try await status in group { #expect(status == 201) }
        }
        // A job's answer can reach its upload before the job's thread has counted it done.
        try await waitUntil("every photo job has been counted done") {
            work.load.running == 0 && work.load.waiting == 0
        }
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == Int64(uploads))
        await server.stop()
    }

    @Test func backgroundJobsRunBelowTheCallersPriority() async throws {
        let work = BlockingWork(label: "test-background", limit: 2, threads: .background(nice: 5))
        let mine = BlockingWork.threadNice()
        let theirs = try await work.run { BlockingWork.threadNice() }
        #expect(theirs == min(19, mine + 5))
        // The caller's own priority is untouched (the nice value is the job thread's alone).
        #expect(BlockingWork.threadNice() == mine)
        let shared = BlockingWork(label: "test-shared", limit: 1)
        #expect(try await shared.run { BlockingWork.threadNice() } == mine)
    }
}
