import Basics
import FoundationEssentials
import HTTPServer
import PlatformClient

#if canImport(Glibc)
    import Glibc
#endif

/// `/review/export.csv` and `/review/export.geojson` (REV-09), both of the dashboard's filter (its query
/// string). Rows are read in keyset pages of 1,000 and written to a file in the data folder's `exports`,
/// which the server then streams from disk and removes (`ExportFile`): memory stays flat however many
/// reports match.
enum ReviewExports {
    static let batch = 1000

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.export("/export.csv") { request, context, user, _ in
            let query = ReviewQuery(request.query)
            let file = try ExportFile(directory: review.settings.exportsDirectory, suffix: "csv")
            try file.write(CSV.byteOrderMark + CSV.line(csvHeader))
            let messages = context.messages
            try eachRow(review.store, query.filter) { row in try file.write(CSV.line(csvFields(row, messages))) }
            try audit(review, user: user, action: "export_csv", query: query)
            return try file.response(
                request, context, type: "text/csv; charset=utf-8", name: "reports.csv")
        }
        group.export("/export.geojson") { request, context, user, _ in
            try geoJSON(review, request, context, user: user, audited: true)
        }
        // The dashboard's map: the same features (at most `mapLimit`), a view rather than an export, so
        // without the reporters' e-mails (nor an audit row).
        group.route("GET", "/map.geojson") { request, context, user, _ in
            try geoJSON(review, request, context, user: user, audited: false)
        }
    }

    static let mapLimit = 10_000

    /// An export by GET that its browser does not vouch for: a link or a redirect from another page,
    /// which the session cookie follows (SameSite=Lax lets it through on a top-level navigation), would
    /// make a coordinator's browser write an export and an audit row in their name. The dashboard asks
    /// for exports by POST with the CSRF token; a GET (a bookmark, a typed address, the page's own
    /// fetch) is made only when the browser says, in `Sec-Fetch-Site` (Fetch Metadata), that it comes
    /// from this origin or from the user ("none"). Another site, a sibling subdomain ("same-site") and a
    /// browser that sends no such field are refused (403).
    static func crossSiteRefusal(_ request: Request, _ context: WebContext, _ review: Review) -> Response? {
        let site = request.headers["Sec-Fetch-Site"]?.lowercased()
        guard site != "same-origin" && site != "none" else { return nil }
        review.web.log.security(
            "export.cross_site", ["client": request.remoteAddress, "path": request.path])
        return review.web.errorPage(
            status: 403, titleKey: "review.crossSiteTitle", messageKey: "review.crossSite", context: context)
    }

    static func geoJSON(_ review: Review, _ request: Request, _ context: WebContext, user: WebUser, audited: Bool)
        throws -> Response
    {
        let query = ReviewQuery(request.query)
        let file = try ExportFile(directory: review.settings.exportsDirectory, suffix: "geojson")
        try file.write("{\"type\":\"FeatureCollection\",\"features\":[")
        var first = true
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var count = 0
        try eachRow(review.store, query.filter, limit: audited ? nil : mapLimit) { row in
            count += 1
            let feature = Feature(row, withReporter: audited, messages: context.messages)
            let bytes = Array(try encoder.encode(feature))
            try file.write(first ? "\n" : ",\n")
            try file.write(bytes)
            first = false
        }
        try file.write("\n]}\n")
        if audited { try audit(review, user: user, action: "export_geojson", query: query) }
        return try file.response(request, context, type: "application/geo+json", name: "reports.geojson")
    }

    static func audit(_ review: Review, user: WebUser, action: String, query: ReviewQuery) throws {
        try review.store.appendAudit(
            AuditEntry(at: WallClock.now(), actor: user.email, action: action, detail: query.queryString))
    }

    /// Every row matching the filter, in the filter's order, a page at a time.
    static func eachRow(
        _ store: any ReviewStore, _ filter: ReviewFilter, limit: Int? = nil, _ body: (ReviewRow) throws -> Void
    ) throws {
        var cursor: ReviewCursor?
        var left = limit ?? Int.max
        while left > 0 {
            let wanted = min(batch, left)
            let rows = try store.search(filter, after: cursor, limit: wanted)
            for row in rows { try body(row) }
            left -= rows.count
            guard rows.count == wanted, let last = rows.last else { return }
            cursor = ReviewCursor(key: last.cursorKey(filter.sort), id: last.id)
        }
    }

    /// The machine columns (codes, ISO 8601 times), then the same values for people (`…_label`, in the
    /// coordinator's language; `submitted_at_utc`: the server knows no reader's time zone).
    static let csvHeader =
        [
            "id", "local_id", "name", "reporter", "origin", "submitted_at", "review_state", "review_reason",
            "delivery_state", "latitude", "longitude", "accuracy_m", "designation", "condition", "occupancy",
            "priority_category", "owner_type", "grade", "photo_count", "platform_report_id",
        ] + humanHeader

    static let humanHeader =
        ["submitted_at_utc", "origin_label", "review_state_label", "review_reason_label", "delivery_state_label"]
        + ReviewLabels.fields.map { $0.name + "_label" }

    static func csvFields(_ row: ReviewRow, _ messages: Messages) -> [CSV.Cell] {
        machineFields(row) + humanFields(row, messages).map { .text($0) }
    }

    /// The human columns' values, in `humanHeader`'s order.
    static func humanFields(_ row: ReviewRow, _ messages: Messages) -> [String] {
        let codes: [String: String?] = [
            "designation": row.designation, "condition": row.condition, "occupancy": row.occupancy,
            "priority_category": row.priorityCategory, "owner_type": row.ownerType, "grade": row.grade,
        ]
        return [
            ReviewLabels.utcText(row.submittedAt), ReviewLabels.origin(row.origin, messages),
            ReviewLabels.reviewState(row.review, messages), ReviewLabels.reason(row.reason, messages),
            ReviewLabels.deliveryState(row.delivery, messages),
        ] + ReviewLabels.fields.map { ReviewLabels.code($0.name, codes[$0.name] ?? nil, messages) }
    }

    static func machineFields(_ row: ReviewRow) -> [CSV.Cell] {
        [
            .number(String(row.id)), .text(row.localID), .text(row.name ?? ""), .text(row.reporter), .text(row.origin),
            .text(ISO8601.utc(seconds: row.submittedAt)), .text(row.review), .text(row.reason ?? ""),
            .text(row.delivery), .number(row.latitude.map { String($0) } ?? ""),
            .number(row.longitude.map { String($0) } ?? ""), .number(row.accuracy.map { String($0) } ?? ""),
            .text(row.designation ?? ""), .text(row.condition ?? ""), .text(row.occupancy ?? ""),
            .text(row.priorityCategory ?? ""), .text(row.ownerType ?? ""), .text(row.grade ?? ""),
            .number(String(row.photoCount)), .text(row.platformReportID ?? ""),
        ]
    }

    /// An RFC 7946 Feature: a Point in [longitude, latitude] order (null geometry without a location).
    struct Feature: Encodable {
        typealias Point = GeoJSONPoint
        struct Properties: Encodable {
            var id: Int64
            var localID: String
            var name: String?
            var reporter: String?
            var origin: String
            var submittedAt: String
            var reviewState: String
            var reviewReason: String?
            var deliveryState: String
            var accuracyMetres: Double?
            var designation: String?
            var condition: String?
            var occupancy: String?
            var priorityCategory: String?
            var ownerType: String?
            var grade: String?
            var photoCount: Int
            /// The same values for people, in the coordinator's language (`ReviewExports.humanHeader`'s
            /// names without `_label`; `submitted_at_utc`).
            var labels: [String: String] = [:]

            enum CodingKeys: String, CodingKey {
                case id, name, reporter, origin, designation, condition, occupancy, grade, labels
                case priorityCategory = "priority_category"
                case reviewReason = "review_reason"
                case localID = "local_id"
                case submittedAt = "submitted_at"
                case reviewState = "review_state"
                case deliveryState = "delivery_state"
                case accuracyMetres = "accuracy_m"
                case ownerType = "owner_type"
                case photoCount = "photo_count"
            }
        }
        var type = "Feature"
        var geometry: Point?
        var properties: Properties

        init(_ row: ReviewRow, withReporter: Bool, messages: Messages) {
            if let latitude = row.latitude, let longitude = row.longitude {
                geometry = Point(coordinates: [longitude, latitude])
            }
            properties = Properties(
                id: row.id, localID: row.localID, name: row.name, reporter: withReporter ? row.reporter : nil,
                origin: row.origin,
                submittedAt: ISO8601.utc(seconds: row.submittedAt), reviewState: row.review,
                reviewReason: row.reason, deliveryState: row.delivery, accuracyMetres: row.accuracy,
                designation: row.designation, condition: row.condition, occupancy: row.occupancy,
                priorityCategory: row.priorityCategory, ownerType: row.ownerType, grade: row.grade,
                photoCount: row.photoCount)
            properties.labels = Dictionary(
                uniqueKeysWithValues: zip(
                    ReviewExports.humanHeader.map { $0.hasSuffix("_label") ? String($0.dropLast(6)) : $0 },
                    ReviewExports.humanFields(row, messages))
            ).filter { !$0.value.isEmpty }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(type, forKey: .type)
            // `null` rather than a missing member: RFC 7946 §3.2 wants the member.
            if let geometry {
                try container.encode(geometry, forKey: .geometry)
            } else {
                try container.encodeNil(forKey: .geometry)
            }
            try container.encode(properties, forKey: .properties)
        }

        enum Keys: String, CodingKey { case type, geometry, properties }
    }
}

/// RFC 4180 CSV: fields separated by commas, lines ended by CRLF, a field with a comma, quote, CR or LF
/// quoted with its quotes doubled. A text cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed
/// with an apostrophe, so a spreadsheet never reads it as a formula (OWASP's CSV injection advice);
/// numbers the server wrote itself are left as they are (a negative longitude stays a number).
enum CSV {
    enum Cell {
        case text(String)
        case number(String)
    }

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func field(_ cell: Cell) -> String {
        var text: String
        switch cell {
        case .number(let value): text = value
        case .text(let value):
            text = value
            if let first = value.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
                text = "'" + value
            }
        }
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
            text = "\"" + text.replacing("\"", with: "\"\"") + "\""
        }
        return text
    }

    static func line(_ cells: [Cell]) -> [UInt8] {
        Array((cells.map(field).joined(separator: ",") + "\r\n").utf8)
    }

    static func line(_ header: [String]) -> [UInt8] { line(header.map { Cell.text($0) }) }
}

/// A file an export is written to, then served from disk. It lasts as long as its answer: the server
/// removes it once it has opened it to send it (`Response.removesFileOnceOpened`), and an export that
/// fails before its answer (413, a deadline, a store error) removes it when dropped. Files of answers
/// that were never sent (the client gone first) go at the next export after ten minutes, or at start.
final class ExportFile {
    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// Bytes written so far (the offset of the next one).
    private(set) var written = 0
    /// Handed to a response, which removes it: no longer this object's to remove.
    private var answered = false

    init(directory: String, suffix: String) throws {
        Self.removeStale(in: directory, olderThan: 600)
        path = directory + "/export-" + Crypto.randomHex(bytes: 16) + "." + suffix
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HTTPError(500) }
        buffer.reserveCapacity(1 << 16)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !answered { unlink(path) }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        written += bytes.count
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let (descriptor, count) = (descriptor, buffer.count)
            let written = buffer.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Glibc.write(descriptor, base + offset, count - offset)
            }
            guard written > 0 else { throw HTTPError(500) }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Closes the file and answers with it, as an attachment named `name`.
    func response(_ request: Request, _ context: WebContext, type: String, name: String) throws -> Response {
        try flush()
        close(descriptor)
        descriptor = -1
        var status = stat()
        guard stat(path, &status) == 0 else { throw HTTPError(500) }
        var response = Response(
            status: 200, headers: Headers([("Content-Type", type)]), body: .file(path: path, size: Int(status.st_size)))
        response.removesFileOnceOpened = true
        answered = true
        response.headers.add("Content-Disposition", "attachment; filename=\"\(name)\"")
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("Cache-Control", "no-store")
        return context.finish(response)
    }

    /// Export files left from earlier answers (the server has streamed them by now).
    static func removeStale(in directory: String, olderThan seconds: Double) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let now = WallClock.now()
        for name in names where name.hasPrefix("export-") {
            var status = stat()
            let path = directory + "/" + name
            if stat(path, &status) == 0, now - Double(status.st_mtim.tv_sec) > seconds { unlink(path) }
        }
    }
}
