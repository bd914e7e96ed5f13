import Synchronization
import Testing

@testable import PlatformClient

/// The client's curl machinery without a platform: a refused connection is "retry later", nothing
/// was sent, and many concurrent calls all come back.
@Suite struct ClientTransportTests {
    @Test func refusedConnectionIsRetryLater() async throws {
        let lines = LogLines()
        let client = try PlatformClient(
            configuration: PlatformConfiguration(
                baseURL: "http://127.0.0.1:1", consumerKey: "k", consumerSecret: "sekrit"),
            log: { lines.append($0) })
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await client.signIn(email: "a@example.org", password: "pw")
                        Issue.record("expected a failure")
                    } catch let error as PlatformError {
                        #expect(error.shouldRetryLater && !error.mayHaveBeenProcessed)
                    } catch { Issue.record("unexpected \(error)") }
                }
            }
        }
        #expect(lines.all.count == 20)
        #expect(
            lines.all.allSatisfy {
                $0.hasPrefix("platform POST account/session failed") && !$0.contains("sekrit") && !$0.contains("pw")
            })
    }

    @Test func otherSchemesAreRefusedWithoutRetry() async throws {
        let client = try PlatformClient(
            configuration: PlatformConfiguration(baseURL: "file:///etc", consumerKey: "k", consumerSecret: "s"))
        await #expect(throws: PlatformError.self) { _ = try await client.signIn(email: "a", password: "b") }
        do { _ = try await client.signIn(email: "a", password: "b") } catch let error as PlatformError {
            #expect(!error.shouldRetryLater)
        }
    }
}

/// Log lines collected from the client's hook, from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
