import Testing

@testable import HeritageApp

/// The list keeps each row's HTML by everything the row shows, so a kept row can never show a
/// stale status: any change to a shown field, or another language, is rendered anew.
@Suite struct RenderedRowsTests {
    let row = ListedReport(
        localID: "local-1", platformReportID: nil, state: .queued, name: "Chapel", formattedAddress: "1 Lane",
        creationTime: 1_767_225_600, lastError: nil, photoCount: 0, photosStored: 0)

    @Test func aRowIsRenderedOnceAndAnyShownChangeRendersItAgain() throws {
        let rows = ReportListScreen.RenderedRows()
        var renders = 0
        func html(_ row: ListedReport, _ language: String = "en") throws -> String {
            try rows.html(row, language: language) {
                renders += 1
                return "\(row.state.rawValue) \(row.name ?? "") \(row.photosStored)/\(row.photoCount) \(language)"
            }
        }
        #expect(try html(row) == "queued Chapel 0/0 en")
        #expect(try html(row) == "queued Chapel 0/0 en")
        #expect(renders == 1, "the same row is kept")

        var stored = row
        stored.state = .stored
        #expect(try html(stored) == "stored Chapel 0/0 en")
        var uploading = row
        uploading.state = .uploading
        uploading.photoCount = 3
        uploading.photosStored = 1
        #expect(try html(uploading) == "uploading Chapel 1/3 en")
        var renamed = row
        renamed.name = "Chapel of St Ninian"
        #expect(try html(renamed) == "queued Chapel of St Ninian 0/0 en")
        var failed = row
        failed.lastError = "too large"
        _ = try html(failed)
        #expect(try html(row, "fr") == "queued Chapel 0/0 fr")
        #expect(renders == 6, "every shown change and the other language rendered anew")
        #expect(try html(row) == "queued Chapel 0/0 en")
        #expect(renders == 6)
    }

    @Test func theKeptRowsStayBounded() throws {
        let rows = ReportListScreen.RenderedRows()
        for index in 0..<(ReportListScreen.RenderedRows.capacity + 10) {
            var numbered = row
            numbered.localID = "local-\(index)"
            _ = try rows.html(numbered, language: "en") { numbered.localID }
        }
        #expect(rows.count <= ReportListScreen.RenderedRows.capacity)
    }
}
