import Basics
import FoundationEssentials
import HTTPServer
import Mustache

/// The dashboard's filter in the query string (REV-05), so that a view can be bookmarked and shared:
/// `need` (a counter's: `waiting`, `published`, `replied`), `review`, `delivery`, `origin`, `reporter`, `from` and `to` (YYYY-MM-DD, both days included), `q`,
/// `failure=1`, `bounds=south,west,north,east`, `site` (a site's id), `sort`; the page after `after=KEY~ID`. Anything
/// unknown or malformed is ignored (the field shows empty), never an error.
struct ReviewQuery: Sendable, Equatable {
    var filter = ReviewFilter()
    var cursor: ReviewCursor?
    var fromText = ""
    var toText = ""
    var boundsText = ""

    init() {}

    /// From (name, value) pairs: the query string, or the hidden fields of the bulk form.
    init(_ pairs: [(name: String, value: String)]) {
        func value(_ name: String) -> String {
            String(Text.trimmed(pairs.first { $0.name == name }?.value ?? "").prefix(200))
        }
        filter.need = ReviewFilter.Need(rawValue: value("need"))
        filter.review = ReviewState(rawValue: value("review"))
        filter.delivery = ReportState(rawValue: value("delivery")).flatMap { $0 == .draft ? nil : $0 }
        filter.origin = ReportOrigin(rawValue: value("origin"))
        filter.reporter = value("reporter")
        filter.text = value("q")
        filter.hasFailure = value("failure") == "1"
        filter.trash = value("trash") == "1"
        filter.sort = ReviewFilter.Sort(rawValue: value("sort")) ?? .newest
        filter.site = Int64(value("site")).flatMap { $0 > 0 ? $0 : nil }
        if let from = Self.day(value("from")) {
            filter.from = from
            fromText = value("from")
        }
        if let to = Self.day(value("to")) {
            filter.to = to + 86_400
            toText = value("to")
        }
        let corners = value("bounds").split(separator: ",").compactMap { Double(String($0)) }
        if corners.count == 4, corners.allSatisfy({ $0.isFinite }), corners[0] <= corners[2], corners[1] <= corners[3] {
            filter.bounds = (corners[0], corners[1], corners[2], corners[3])
            boundsText = value("bounds")
        }
        let after = value("after")
        if let split = after.lastIndex(of: "~"), let id = Int64(after[after.index(after: split)...]) {
            cursor = ReviewCursor(key: String(after[..<split]), id: id)
        }
    }

    /// Midnight UTC of a YYYY-MM-DD day, in Unix seconds.
    static func day(_ text: String) -> Double? {
        guard text.utf8.count == 10, let date = ISO8601.parse(text + "T00:00:00Z") else { return nil }
        return date.timeIntervalSince1970
    }

    /// The filter's fields as (name, value) pairs, empty ones left out (no cursor).
    var pairs: [(String, String)] {
        var pairs: [(String, String)] = []
        if let need = filter.need { pairs.append(("need", need.rawValue)) }
        if let review = filter.review { pairs.append(("review", review.rawValue)) }
        if let delivery = filter.delivery { pairs.append(("delivery", delivery.rawValue)) }
        if let origin = filter.origin { pairs.append(("origin", origin.rawValue)) }
        if !filter.reporter.isEmpty { pairs.append(("reporter", filter.reporter)) }
        if !fromText.isEmpty { pairs.append(("from", fromText)) }
        if !toText.isEmpty { pairs.append(("to", toText)) }
        if !filter.text.isEmpty { pairs.append(("q", filter.text)) }
        if filter.hasFailure { pairs.append(("failure", "1")) }
        if filter.trash { pairs.append(("trash", "1")) }
        if !boundsText.isEmpty { pairs.append(("bounds", boundsText)) }
        if let site = filter.site { pairs.append(("site", String(site))) }
        if filter.sort != .newest { pairs.append(("sort", filter.sort.rawValue)) }
        return pairs
    }

    /// The filter as a query string, without `?`.
    var queryString: String {
        pairs.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// The filter's fields as hidden inputs of a form.
    var hiddenFields: MustacheValue {
        .array(pairs.map { ["name": .string($0.0), "value": .string($0.1)] })
    }

    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
