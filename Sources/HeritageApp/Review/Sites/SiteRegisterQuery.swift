import Basics
import HTTPServer
import PlatformClient

/// The register's filter in the query string (SITE-06), so that a view can be bookmarked and shared
/// and the exports take the same: `condition`, `priority`, `designation` (the form's codes),
/// `worsened=YYYY-MM-DD` (worse than before since that day), `stale=N` (no report for N months),
/// `q` (part of the name or reference), `reported=1`; the page after `after=NAME~ID`. Anything unknown
/// or malformed is ignored (its field shows empty), never an error.
struct SiteRegisterQuery: Sendable, Equatable {
    var filter = SiteRegisterFilter()
    var cursor: SiteCursor?
    var worsenedText = ""
    var staleMonths: Int?

    /// A month, for "not reported for N months": 30.44 days.
    static let monthSeconds = 2_629_800.0

    init(_ pairs: [(name: String, value: String)], now: Double) {
        func value(_ name: String) -> String {
            String(Text.trimmed(pairs.first { $0.name == name }?.value ?? "").prefix(200))
        }
        filter.condition = Condition(rawValue: value("condition"))?.rawValue
        filter.priority = PriorityCategory(rawValue: value("priority"))?.rawValue
        filter.designation = Designation(rawValue: value("designation"))?.rawValue
        filter.text = value("q")
        filter.reportedOnly = value("reported") == "1"
        if let day = ReviewQuery.day(value("worsened")) {
            filter.worsenedSince = day
            worsenedText = value("worsened")
        }
        if let months = Int(value("stale")), (1...1200).contains(months) {
            staleMonths = months
            filter.notReportedSince = now - Double(months) * Self.monthSeconds
        }
        let after = value("after")
        if let split = after.lastIndex(of: "~"), let id = Int64(after[after.index(after: split)...]) {
            cursor = SiteCursor(name: String(after[..<split]), id: id)
        }
    }

    var pairs: [(String, String)] {
        var pairs: [(String, String)] = []
        if let condition = filter.condition { pairs.append(("condition", condition)) }
        if let priority = filter.priority { pairs.append(("priority", priority)) }
        if let designation = filter.designation { pairs.append(("designation", designation)) }
        if !worsenedText.isEmpty { pairs.append(("worsened", worsenedText)) }
        if let months = staleMonths { pairs.append(("stale", String(months))) }
        if !filter.text.isEmpty { pairs.append(("q", filter.text)) }
        if filter.reportedOnly { pairs.append(("reported", "1")) }
        return pairs
    }

    var queryString: String {
        pairs.map { "\($0.0)=\(ReviewQuery.percentEncoded($0.1))" }.joined(separator: "&")
    }
}
