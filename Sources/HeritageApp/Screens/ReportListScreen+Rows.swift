import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// The list's rows: their rendering (HTML and JSON), their status words (kept rendered rows: `RenderedRows`).
extension ReportListScreen {
    /// `{"rows": [...], "html": "...", "moreHTML": "...", "shown": n, "total": n, "refreshed": true}`: the
    /// rows as data, and as the page renders them (rows, then the "Show more" line).
    static func rowsAnswer(
        _ web: Web, _ context: WebContext, _ page: ReportPage, refreshed: Bool = true, rendered: RenderedRows
    ) throws -> Response {
        let rows = page.rows
        let words = RowWords(context.messages)
        let values: MustacheFields = [
            "rows": try rowsValue(rows, web, context, rendered), "t": context.messages.tree,
            "more": moreValue(page, context.messages),
        ]
        let html = try web.templates.render("partials/report-rows", .fields(values))
        let moreHTML = try web.templates.render("partials/show-more", .fields(values))
        let answer = RowsAnswer(
            rows: rows.map { row in
                RowJSON(
                    id: row.localID, name: row.name, formattedAddress: row.formattedAddress,
                    creationTime: ISO8601.format(Date(timeIntervalSince1970: row.creationTime)),
                    state: row.state.rawValue,
                    status: status(of: row).kind, statusText: words.status(of: row).text)
            }, html: html, moreHTML: moreHTML, shown: rows.count, total: page.total, refreshed: refreshed,
            pending: rows.contains { $0.state != .stored })
        return web.json(answer, context: context)
    }

    /// The rows for `partials/report-rows`: each one's HTML, rendered through `partials/report-row`
    /// or taken from `rendered`.
    static func rowsValue(
        _ rows: [ListedReport], _ web: Web, _ context: WebContext, _ rendered: RenderedRows
    ) throws -> MustacheValue {
        var words: RowWords?
        let language = context.language.rawValue
        var values: [MustacheValue] = []
        values.reserveCapacity(rows.count)
        var fresh: [RenderedRows.Fresh] = []
        // A loop rather than a closure per row: the closure copied the request's context for every
        // row (callgrind), and a kept row is taken as the value the page renders.
        for (row, found) in zip(rows, rendered.look(rows, language: language)) {
            if let kept = found.value {
                values.append(kept)
                continue
            }
            let rowWords = words ?? RowWords(context.messages)
            words = rowWords
            var html = ""
            if case .fields(var fields) = rowValue(row, rowWords) {
                fields["t"] = context.messages.tree
                html = try web.templates.render("partials/report-row", .fields(fields))
            }
            let row = RenderedRows.fresh(found, row, language: language, html: html)
            values.append(row.value)
            fresh.append(row)
        }
        rendered.keep(fresh)
        return .array(values)
    }

    static func rowValue(_ row: ListedReport, _ words: RowWords) -> MustacheValue {
        let iso = ISO8601.format(Date(timeIntervalSince1970: row.creationTime))
        let name = row.name.flatMap { $0.isEmpty ? nil : $0 } ?? words.noName
        let status = words.status(of: row)
        return [
            "id": .string(row.localID), "name": .string(name),
            "address": MustacheValue(row.formattedAddress.flatMap { $0.isEmpty ? nil : $0 }),
            "iso": .string(iso), "dateFallback": .string(fallbackDate(iso)),
            // `kind` names the status class and the icon of the page's sprite (i-stored, i-queued, i-attention).
            "kind": .string(status.kind), "attention": .bool(status.kind == "attention"),
            "statusText": .string(status.text),
            "detail": MustacheValue(row.state == .needsAttention ? row.lastError : nil),
            "deleteLabel": .string(Messages.fill(words.deleteLabel, ["name": name])),
        ]
    }

    /// "2026-11-29 15:41 UTC" from "2026-11-29T15:41:17.000000+00:00": what a browser without
    /// JavaScript shows (the script localizes it).
    static func fallbackDate(_ iso: String) -> String {
        var bytes = Array(iso.utf8.prefix(16))
        guard bytes.count == 16 else { return iso }
        bytes[10] = UInt8(ascii: " ")
        bytes.append(contentsOf: " UTC".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// LST-03: Stored (cloud done), Queued (cloud pending), or, when the user must act, words that say so.
    /// The kind and the message key of the row's status.
    static func status(of row: ListedReport) -> (kind: String, key: String) {
        switch row.state {
        case .stored: ("stored", "list.status.stored")
        case .uploading: ("queued", "list.status.uploading")
        case .retryWait: ("queued", "list.status.retrying")
        case .held: ("queued", "list.status.held")
        case .needsAttention: ("attention", "list.status.needsAttention")
        case .waitingSignIn: ("attention", "list.status.waitingSignin")
        case .withdrawing: ("attention", "list.status.withdrawing")
        case .withdrawn: ("attention", "list.status.withdrawn")
        default: ("queued", "list.status.queued")
        }
    }

    /// The words of the list's rows in one language, looked up once per page rather than for every row
    /// (perf: the catalogue's hash lookups were 5% of a 50-row page).
    struct RowWords {
        let noName: String
        let deleteLabel: String
        /// Status message by key; `list.status.uploading` has placeholders and is filled per row.
        let statuses: [(key: String, text: String)]

        init(_ messages: Messages) {
            noName = messages["list.noName"]
            deleteLabel = messages["list.deleteLabel"]
            statuses = [
                "list.status.stored", "list.status.uploading", "list.status.retrying", "list.status.held",
                "list.status.needsAttention", "list.status.waitingSignin", "list.status.queued",
                "list.status.withdrawing", "list.status.withdrawn",
            ].map { ($0, messages[$0]) }
        }

        func status(of row: ListedReport) -> (kind: String, text: String) {
            let (kind, key) = ReportListScreen.status(of: row)
            let template = statuses.first { $0.key == key }?.text ?? key
            // The worker's progress: how many of the report's photos the platform has.
            return (kind, Messages.fill(template, ["sent": String(row.photosStored), "total": String(row.photoCount)]))
        }
    }
}
