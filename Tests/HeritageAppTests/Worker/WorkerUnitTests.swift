import Foundation
import PlatformClient
import Testing

@testable import HeritageApp

/// The worker's pure parts: reconciliation's matching and the backoff.
@Suite struct WorkerUnitTests {
    let sent = NewReport(
        condition: .poor, designation: .listedBuilding, grade: .two, occupancy: .vacant, ownerType: .private,
        placeName: "St Mary", priorityCategory: .a, location: Location(latitude: 51.5, longitude: -0.12))

    func listed(_ id: String, at time: Double, name: String = "St Mary", condition: String? = "poor") -> PlatformReport
    {
        var report = PlatformReport(reportID: id, creationTime: Date(timeIntervalSince1970: time))
        report.name = name
        report.condition = condition
        report.location = Location(latitude: 51.5, longitude: -0.12)
        return report
    }

    @Test func adoptsTheEarliestUnclaimedSameReportCreatedAfterTheAttempt() {
        let reports = [
            listed("old", at: 100), listed("other", at: 1_010, name: "St John"),
            listed("changed", at: 1_020, condition: "good"), listed("mine", at: 1_030), listed("later", at: 1_040),
        ]
        let match = Reconciliation.match(sent, attemptedAt: 1_000, slack: 5, in: reports, isClaimed: { _ in false })
        #expect(match?.reportID == "mine")
        let next = Reconciliation.match(sent, attemptedAt: 1_000, slack: 5, in: reports, isClaimed: { $0 == "mine" })
        #expect(next?.reportID == "later")
        #expect(Reconciliation.match(sent, attemptedAt: 2_000, slack: 5, in: reports, isClaimed: { _ in false }) == nil)
    }

    @Test func missingFieldsDoNotContradictButTheNameMustBeThere() {
        var sparse = PlatformReport(reportID: "x", creationTime: Date())
        #expect(!Reconciliation.sameFields(sent, sparse))
        sparse.name = "St Mary"
        #expect(Reconciliation.sameFields(sent, sparse))
        sparse.location = Location(latitude: 10, longitude: 10)
        #expect(!Reconciliation.sameFields(sent, sparse))
    }

    @Test func backoffIsCappedWithFullJitterAndHonoursRetryAfter() {
        var settings = WorkerSettings()
        settings.retryBaseSeconds = 1
        settings.retryCapSeconds = 30
        for failures in 0..<50 {
            let delay = settings.retryDelay(failuresInARow: failures, retryAfter: nil)
            #expect(delay >= 0 && delay <= min(30, pow(2, Double(failures))))
        }
        #expect(settings.retryDelay(failuresInARow: 0, retryAfter: 7) >= 7)
        let draws = Set((0..<20).map { _ in settings.retryDelay(failuresInARow: 10, retryAfter: nil) })
        #expect(draws.count > 1, "jitter")
    }
}
