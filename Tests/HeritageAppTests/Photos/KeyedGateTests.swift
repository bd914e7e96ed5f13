import Synchronization
import Testing

@testable import HeritageApp

/// `KeyedGate`, an async mutex per key: the worker's creates, and uploads naming one photo
/// (`PhotoFiles.keeping`).
@Suite struct KeyedGateTests {
    /// What ran, in order, from several tasks.
    final class Trace: Sendable {
        private let events = Mutex<[String]>([])
        func add(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
    }

    @Test func oneHolderPerKeyInTheOrderTheyCameAndOtherKeysMeanwhile() async {
        let gate = KeyedGate()
        let trace = Trace()
        let (held, signalHeld) = AsyncStream.makeStream(of: Void.self)
        let (letGo, signalLetGo) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            await gate.withExclusive("a") {
                trace.add("a1 in")
                signalHeld.yield()
                for await _ in letGo { break }
                trace.add("a1 out")
            }
        }
        for await _ in held { break }
        // Queued behind the holder, in this order; another key is not held up meanwhile.
        let second = Task { await gate.withExclusive("a") { trace.add("a2") } }
        while gate.waitingCount("a") < 1 { await Task.yield() }
        let third = Task { await gate.withExclusive("a") { trace.add("a3") } }
        while gate.waitingCount("a") < 2 { await Task.yield() }
        await gate.withExclusive("b") { trace.add("b") }
        signalLetGo.yield()
        _ = await (first.value, second.value, third.value)
        #expect(trace.all == ["a1 in", "b", "a1 out", "a2", "a3"])
        #expect(!gate.isHeld("a") && !gate.isHeld("b"))
    }

    @Test func aHolderThatThrowsLetsTheNextIn() async throws {
        let gate = KeyedGate()
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await gate.withExclusive("a") { throw Refused() } }
        #expect(!gate.isHeld("a"))
        #expect(await gate.withExclusive("a") { 1 } == 1)
        #expect(!gate.isHeld("a"))
    }
}
