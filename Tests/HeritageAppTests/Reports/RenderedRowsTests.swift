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
        #expect(try html(row, "fr") == "queued Chapel 0/0 fr")
        #expect(renders == 6, "kept in the other language")
        // The report's entry in English holds its last change: the row as it first was is rendered again.
        #expect(try html(row) == "queued Chapel 0/0 en")
        #expect(renders == 7)
        #expect(try html(row) == "queued Chapel 0/0 en")
        #expect(renders == 7)
    }

    /// LST-03: the key is one byte string per row; a change to any field the page shows (or reads
    /// to show: ids, state, name, address, time, error, photo counts, nil against empty, the language)
    /// is another key, so it is rendered anew and never served stale; the unchanged row is found again.
    @Test func everyShownFieldChangesTheKeyAndIsRenderedAnew() throws {
        var named = row
        named.platformReportID = "P-1"
        named.lastError = "too large"
        var variants: [(String, ListedReport, String)] = [
            ("row", row, "en"), ("fr", row, "fr"), ("named", named, "en"),
        ]
        func variant(_ label: String, _ change: (inout ListedReport) -> Void) {
            var changed = row
            change(&changed)
            variants.append((label, changed, "en"))
        }
        variant("localID") { $0.localID = "local-2" }
        variant("platformReportID") { $0.platformReportID = "P-1" }
        variant("platformReportID empty") { $0.platformReportID = "" }
        variant("state") { $0.state = .stored }
        variant("name") { $0.name = "Chapel of St Ninian" }
        variant("name nil") { $0.name = nil }
        variant("name empty") { $0.name = "" }
        variant("address") { $0.formattedAddress = "2 Lane" }
        variant("address nil") { $0.formattedAddress = nil }
        variant("time") { $0.creationTime += 1 }
        variant("lastError") { $0.lastError = "too large" }
        variant("photoCount") { $0.photoCount = 3 }
        variant("photosStored") { $0.photosStored = 1 }
        // Bytes moved from one field into the next make other bytes (each field carries its length).
        variant("name/address shifted") {
            $0.name = "Chapel1"
            $0.formattedAddress = " Lane"
        }
        #expect(Set(variants.map { ReportListScreen.RenderedRows.bytes($0.1, language: $0.2) }).count == variants.count)
        for (label, changed, language) in variants {
            // Each variant after the row itself: rendered anew (not served as the row), then kept.
            let rows = ReportListScreen.RenderedRows()
            var renders = 0
            func html(_ row: ListedReport, _ language: String, _ text: String) throws -> String {
                try rows.html(row, language: language) {
                    renders += 1
                    return text
                }
            }
            #expect(try html(row, "en", "row") == "row")
            #expect(try html(changed, language, label) == label, "\(label) is rendered anew, not served as another row")
            #expect(try html(changed, language, "again") == label, "\(label) is kept")
            #expect(renders == (label == "row" ? 1 : 2), "\(label): the unchanged row is found again")
            let bytes = ReportListScreen.RenderedRows.bytes(changed, language: language)
            #expect(ReportListScreen.RenderedRows.matches(bytes, changed, language: language))
            #expect(!ReportListScreen.RenderedRows.matches(bytes, changed, language: language + "x"))
        }
    }

    /// A report keeps one entry per language, whatever it went through: a changed row takes its old
    /// entry's place (the rows of a report that changed a hundred times are not kept a hundred times).
    @Test func aReportKeepsOneEntryPerLanguage() throws {
        let rows = ReportListScreen.RenderedRows()
        var renders = 0
        for step in 0..<100 {
            var changed = row
            changed.photoCount = 3
            changed.photosStored = step % 4
            changed.state = step % 2 == 0 ? .uploading : .retryWait
            for language in ["en", "fr"] {
                _ = try rows.html(changed, language: language) {
                    renders += 1
                    return "\(step) \(language)"
                }
            }
        }
        #expect(rows.count == 2)
        #expect(renders == 200, "every change rendered anew")
        var other = row
        other.localID = "local-2"
        _ = try rows.html(other, language: "en") { "other" }
        #expect(rows.count == 3)
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
