import Dispatch
import Synchronization
import Testing

@testable import HeritageApp

/// SITE-07: the import's reader and writer overlap through `SiteImportPipe`; what crosses it arrives in
/// order, the reader's error arrives after the batches before it, and a writer that gives up stops the
/// reader at its next batch without either side waiting for ever.
@Suite struct SiteImportPipeTests {
    static func batch(_ number: Int) -> SiteImportPipe.Batch {
        let site = NewSite(
            reference: "R-\(number)", name: "Site \(number)", designation: nil, grade: nil, latitude: 50,
            longitude: -1, outline: nil)
        return .init(sites: [site], records: number, bytesRead: number * 10)
    }

    /// Reads `pipe` to its end: the batches' record counts and the end's error.
    static func drain(_ pipe: SiteImportPipe) -> (records: [Int], error: (any Error)?) {
        var records: [Int] = []
        while true {
            switch pipe.take() {
            case .batch(let batch): records.append(batch.records)
            case .end(let error): return (records, error)
            }
        }
    }

    @Test func site07BatchesArriveInOrderThenTheEnd() {
        let pipe = SiteImportPipe(capacity: 1)
        DispatchQueue.global().async {
            for number in 1...50 { #expect(pipe.put(Self.batch(number))) }
            pipe.close(nil)
        }
        let (records, error) = Self.drain(pipe)
        #expect(records == Array(1...50))
        #expect(error == nil)
    }

    @Test func site07TheReadersErrorComesAfterItsBatches() {
        let pipe = SiteImportPipe(capacity: 1)
        DispatchQueue.global().async {
            for number in 1...3 { _ = pipe.put(Self.batch(number)) }
            pipe.close(
                SiteImportFailure.record(unit: "feature", number: 6_001, reason: "latitude 91 is outside -90…90"))
        }
        let (records, error) = Self.drain(pipe)
        #expect(records == [1, 2, 3])
        #expect(
            (error as? SiteImportFailure)
                == .record(unit: "feature", number: 6_001, reason: "latitude 91 is outside -90…90"))
    }

    /// The writer fails on the second batch: the reader, blocked or not, is refused from then on and
    /// ends; the writer sees the end.
    @Test func site07AWriterThatGivesUpStopsTheReader() {
        let pipe = SiteImportPipe(capacity: 1)
        let refusedAt = SiteImportPipeTests.Box()
        DispatchQueue.global().async {
            for number in 1...1_000 where !pipe.put(Self.batch(number)) {
                refusedAt.set(number)
                pipe.close(SiteImportFailure.cancelled)
                return
            }
            pipe.close(nil)
        }
        guard case .batch(let first) = pipe.take() else {
            Issue.record("no first batch")
            return
        }
        #expect(first.records == 1)
        pipe.cancel()
        let (records, error) = Self.drain(pipe)
        #expect(records.count <= 2, "batches taken after the cancel: \(records)")
        #expect((error as? SiteImportFailure) == .cancelled)
        #expect((refusedAt.get() ?? 1_000) < 1_000)
    }

    final class Box: Sendable {
        private let value = Mutex<Int?>(nil)
        func set(_ number: Int) { value.withLock { $0 = number } }
        func get() -> Int? { value.withLock { $0 } }
    }
}
