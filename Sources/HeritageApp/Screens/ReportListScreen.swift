import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient
import Synchronization

/// The report list (LST-01..09): rendered at once from the local store; the page's script then asks
/// `/api/reports/refresh` to merge what the platform lists (LST-05) and polls `/api/reports` while
/// reports are on their way. Delete works as a form post without JavaScript too.
///
/// The page shows the newest `pageSize` reports and a "Show more" link (`?show=N`) for the rest: a
/// volunteer with hundreds of reports on a phone over a weak connection gets a page of ~40 KB, not
/// every report they ever made. The link works without JavaScript; with it, the rows grow in place.
enum ReportListScreen {
    /// Rows per step of "Show more".
    static let pageSize = 50
    /// The most rows one page renders, whatever `show` asks.
    static let maximumShown = 5_000

    static func register(on group: inout RouteGroup<Web>) {
        let web = group.gate
        let reports = ReportList(store: web.stores.reports, files: PhotoFiles(directory: web.photosDirectory))
        let rendered = RenderedRows()
        let kept = KeptPages(maximumBytes: web.keptListBytes)
        group.route("GET", "/reports", access: .page) { request, context in
            let user = try context.requireUser()
            let tag = try listTag(.page, request, context, version: context.listVersion)
            if let unchanged = request.notModified(tag: tag, headers: revalidated) { return context.finish(unchanged) }
            let gzip = wantsGzip(request, web)
            if let page = kept.page(tag, userID: user.id) {
                let token = CSRFMask.mask(context.csrfToken)
                let page = compressing(page, tag, kept, web, gzip, tokenLength: token.utf8.count)
                return keptAnswer(page, .page, context, tag, token: token, gzip: gzip)
            }
            // The rows, the review's notices, the kiosks' receipts and the bell in one snapshot: on SQLite
            // one reader and one read transaction for the page instead of four (docs/BENCHMARKS.md).
            return try web.stores.together.reads { () throws -> Response in
                let page = try reports.page(userID: user.id, limit: shown(request))
                let outcome = request.queryValue("deleted") == "1" ? context.messages["list.deleted"] : nil
                guard kept.isOn else {
                    return cacheable(
                        try self.page(
                            web, context, page, notice: outcome, failure: request.queryValue("failed") == "1",
                            rendered: rendered),
                        tag)
                }
                // Rendered with a placeholder where the token goes, kept in parts, answered as a kept page is.
                let response = try self.page(
                    web, context, page, notice: outcome, failure: request.queryValue("failed") == "1",
                    rendered: rendered, csrf: csrfPlace)
                guard case .bytes(let body) = response.body else { return response }
                var parts = KeptPages.Page(userID: user.id, body: body, cutAt: Array(csrfPlace.utf8))
                guard response.status == 200, isKeepable(request) else {
                    return deliver(response, parts, token: CSRFMask.mask(context.csrfToken), gzip: false, tag)
                }
                let token = CSRFMask.mask(context.csrfToken)
                if gzip, parts.bodyBytes >= Compression.minimumBytes {
                    parts = parts.withGzip(level: web.gzipLevel, tokenLength: token.utf8.count)
                }
                kept.keep(tag, parts)
                return deliver(response, parts, token: token, gzip: gzip, tag)
            }
        }
        group.route("GET", "/api/reports", access: .api) { request, context in
            let user = try context.requireUser()
            let tag = try listTag(.rows, request, context, version: context.listVersion)
            if let unchanged = request.notModified(tag: tag, headers: revalidated) { return context.finish(unchanged) }
            let gzip = wantsGzip(request, web)
            if let page = kept.page(tag, userID: user.id) {
                let page = compressing(page, tag, kept, web, gzip, tokenLength: 0)
                return keptAnswer(page, .rows, context, tag, token: "", gzip: gzip)
            }
            let response = try rowsAnswer(
                web, context, reports.page(userID: user.id, limit: shown(request)), rendered: rendered)
            guard kept.isOn, isKeepable(request), response.status == 200, case .bytes(let body) = response.body else {
                return cacheable(response, tag)
            }
            var parts = KeptPages.Page(userID: user.id, body: body)
            if gzip, parts.bodyBytes >= Compression.minimumBytes {
                parts = parts.withGzip(level: web.gzipLevel, tokenLength: 0)
            }
            kept.keep(tag, parts)
            return deliver(response, parts, token: "", gzip: gzip, tag)
        }
        group.routeAsync("POST", "/api/reports/refresh", access: .api) { request, context in
            let user = try context.requireUser()
            let limit = shown(request)
            do {
                // Taken before the GET is sent: the listing is judged only against rows older than it.
                let listingStartedAt = WallClock.now()
                let listed = try await web.withPlatform(context) { client, session in
                    try await client.listReports(session: session)
                }
                try reports.merge(listed, userID: user.id, now: WallClock.now(), listingStartedAt: listingStartedAt)
            } catch let error as PlatformError {
                web.log.info("list refresh for user \(user.id) failed: \(error)")
                var answer = try rowsAnswer(
                    web, context, reports.page(userID: user.id, limit: limit), refreshed: false, rendered: rendered)
                answer.status = 503
                return answer
            }
            return try rowsAnswer(web, context, reports.page(userID: user.id, limit: limit), rendered: rendered)
        }
        group.routeAsync("POST", "/reports/:id/delete", access: .page) { request, context in
            // The page's delete form carries how many rows it showed, so that the list comes back as long.
            let shown = shownCount(request.formValue("show"))
            return try await delete(request.parameters["id"] ?? "", context, web: web, reports: reports, shown: shown)
        }
    }

    // MARK: - Revalidation
    //
    // The list and its JSON carry a strong ETag made from the user's list version (`ReportStore.listVersion`,
    // bumped in the transaction of every change to what the list shows, the worker's included; read in
    // the session's own statement, `WebContext.listVersion`) and from
    // everything else the answer depends on; they are sent `private, no-cache`, so a browser keeps them
    // and asks again every time: a reload or a poll of an unchanged list is a 304, without reading the
    // rows or rendering. The version is read before the rows: a change committed in between makes the
    // tag older than the rows it goes out with, never newer, so the next request sees the change.

    enum Answer: String {
        case page
        case rows
    }

    /// Cached by the browser only, and always asked again before use.
    static let revalidated = Headers([("Cache-Control", "private, no-cache")])

    /// The answer's ETag: the user, the list version, the language, the query (how many rows, notices),
    /// and for the page also what it shows of the session and the user (its CSRF token, settings,
    /// name): a 304 must stand for bytes that still work. Hashed under a key of this process
    /// (`ListTagHash`): none of it is readable in the tag, and a new build never matches an old tag.
    static func listTag(_ answer: Answer, _ request: Request, _ context: WebContext, version: Int64) throws -> String {
        let user = try context.requireUser()
        // Bytes appended to one buffer (string interpolation was a seventh of a 304's instructions).
        var text: [UInt8] = []
        text.reserveCapacity(384)
        // One call per part (a variadic array was allocated per call); the settings as their three
        // values (the JSON the page embeds is made from exactly these), not as that JSON's String.
        func add(_ part: String) { text.append(contentsOf: part.utf8) }
        func add(_ number: Int64) { DecimalDigits.append(number, to: &text) }
        func add(_ number: Int) { DecimalDigits.append(number, to: &text) }
        func separator(_ byte: Unicode.Scalar) { text.append(UInt8(ascii: byte)) }
        add(answer.rawValue)
        separator("|")
        add(user.id)
        separator("|")
        add(version)
        separator("|")
        add(context.language.rawValue)
        separator("|")
        for (name, value) in request.query {
            add(name.utf8.count)
            separator(":")
            add(name)
            separator("=")
            add(value.utf8.count)
            separator(":")
            add(value)
            separator("&")
        }
        if answer == .page {
            let settings = user.settings
            func field(_ part: String) {
                separator("|")
                add(part.utf8.count)
                separator(":")
                add(part)
            }
            field(context.csrfToken)
            field(user.email)
            field(user.fullname ?? "")
            separator("|")
            add(settings.gpsAccuracyMetres)
            separator(",")
            add(settings.gpsAlertSeconds)
            separator(",")
            add(settings.wirelessOnly ? 1 : 0)
        }
        return ListTagHash.tag(text)
    }

    // MARK: - Kept answers
    //
    // `KeptPages`: the page and its JSON as rendered, kept under their tag, so that a request whose tag
    // is kept is answered without reading the rows or rendering. The page is kept without its CSRF
    // token, which each response gets masked afresh.

    /// Where the page's token goes, as the page is rendered to be kept: random for each process, so no
    /// text a user typed (a report's name) can hold it (32 letters of 20, 138 bits). Capitals past F:
    /// letters a page seldom holds, so the search that cuts it moves by the marker's length at almost
    /// every step (hex digits, common in a page, made it crawl).
    static let csrfPlace = String(
        decoding: Crypto.randomBytes(32).map { UInt8(ascii: "G") + $0 % 20 }, as: UTF8.self)

    /// Only a query the list itself makes is kept (`show`, `deleted`, `failed`, each at most once):
    /// any other query is answered, not kept, so that made-up queries cannot fill the store.
    static func isKeepable(_ request: Request) -> Bool {
        var seen: Set<String> = []
        for (name, value) in request.query {
            guard ["show", "deleted", "failed"].contains(name), value.utf8.count <= 9, seen.insert(name).inserted
            else { return false }
        }
        return true
    }

    /// A kept answer as a response: the page with a token masked for this response in each place.
    static func keptAnswer(
        _ page: KeptPages.Page, _ answer: Answer, _ context: WebContext, _ tag: String, token: String, gzip: Bool
    ) -> Response {
        var response: Response
        switch answer {
        case .page: response = Response(contentType: "text/html; charset=utf-8", body: [])
        case .rows: response = .json([])
        }
        response.headers.add("Cache-Control", "no-store")
        return deliver(context.finish(response), page, token: token, gzip: gzip, tag)
    }

    /// A page kept by a request without gzip, asked for with it: compressed once and kept so.
    static func compressing(
        _ page: KeptPages.Page, _ tag: String, _ kept: KeptPages, _ web: Web, _ gzip: Bool, tokenLength: Int
    ) -> KeptPages.Page {
        guard gzip, page.gzip?.tokenLength != tokenLength, page.bodyBytes >= Compression.minimumBytes else {
            return page
        }
        let compressed = page.withGzip(level: web.gzipLevel, tokenLength: tokenLength)
        kept.keep(tag, compressed)
        return compressed
    }

    /// The client takes gzip and pages are compressed (`gzip_level`): a kept answer goes out from its
    /// compressed parts, as `HTTPServer.compressed` would have sent it (gzip is all it makes per request).
    static func wantsGzip(_ request: Request, _ web: Web) -> Bool {
        web.gzipLevel > 0 && AcceptEncoding.accepts(request.headers["Accept-Encoding"], .gzip)
    }

    /// `response` with the kept body, `token` in each place: the compressed parts when `gzip` and kept
    /// (`Content-Encoding`, `Vary` and the gzip ETag as `HTTPServer.compressed` gives them), else the
    /// parts with the token between them as pieces (which the server compresses per response if the
    /// client takes it).
    static func deliver(_ response: Response, _ page: KeptPages.Page, token: String, gzip: Bool, _ tag: String)
        -> Response
    {
        var response = cacheable(response, tag)
        if gzip, page.bodyBytes >= Compression.minimumBytes, let member = page.gzipBody(token: token) {
            response.body = .bytes(member)
            response.headers.add("Content-Encoding", "gzip")
            response.headers.add("Vary", "Accept-Encoding")
            response.headers.set("ETag", ContentCoding.gzip.tag(from: tag))
        } else {
            // The parts and the token where they are: no copy of the page per response.
            response.body = .pieces(page.pieces(token: token))
        }
        return response
    }

    /// A 200 gets the tag and `private, no-cache` in place of `no-store`; anything else is left alone.
    static func cacheable(_ response: Response, _ tag: String) -> Response {
        guard response.status == 200 else { return response }
        var response = response
        response.headers.set("Cache-Control", "private, no-cache")
        response.headers.add("ETag", tag)
        return response
    }

    /// LST-06..09. JSON for the page's script; a redirect (or the list with the failure shown) without it.
    static func delete(
        _ localID: String, _ context: WebContext, web: Web, reports: ReportList, shown: Int? = nil
    ) async throws -> Response {
        let more = shown.map { $0 > pageSize ? "&show=\($0)" : "" } ?? ""
        let user = try context.requireUser()
        let now = WallClock.now()
        switch try reports.planDeletion(localID: localID, userID: user.id, now: now) {
        case .notFound:
            if context.wantsJSON {
                return web.jsonError("not_found", context.messages["errors.notFound"], status: 404, context: context)
            }
            return web.errorPage(
                status: 404, titleKey: "errors.notFound", messageKey: "errors.notFound", context: context)
        case .cancelledLocally:
            return deleted(web, context, more)
        case .handedToWorker:
            web.worker.reportDue()
            return deleted(web, context, more)
        case .deleteOnPlatform(let reportID):
            do {
                try await web.withPlatform(context) { client, session in
                    try await client.deleteReport(reportID: reportID, session: session)
                }
            } catch let error as PlatformError {
                // LST-08: any answer but 200 (or none) shows the dialog; the row stays.
                web.log.info("delete of report \(localID) failed: \(error)")
                if context.wantsJSON {
                    return web.json(
                        DeletionFailure(
                            error: "delete_failed", title: context.messages["list.deleteFailure.title"],
                            message: context.messages["list.deleteFailure.message"]), status: 502, context: context)
                }
                return web.redirect("/reports?failed=1" + more, context: context)
            }
            try reports.markDeleted(localID: localID, userID: user.id, now: now)
            return deleted(web, context, more)
        }
    }

    private static func deleted(_ web: Web, _ context: WebContext, _ more: String) -> Response {
        if context.wantsJSON { return web.json(["deleted": true], context: context) }
        return web.redirect("/reports?deleted=1" + more, context: context)
    }

    /// How many rows to show: `?show=N`, at least one page and at most `maximumShown`; anything that
    /// is not a number is one page.
    static func shown(_ request: Request) -> Int { shownCount(request.queryValue("show")) ?? pageSize }

    /// A `show` value kept within bounds; nil when it is not a number.
    static func shownCount(_ text: String?) -> Int? {
        guard let text, text.count <= 9, let asked = Int(text) else { return nil }
        return min(max(asked, pageSize), maximumShown)
    }

    static func page(
        _ web: Web, _ context: WebContext, _ page: ReportPage, notice: String?, failure: Bool, rendered: RenderedRows,
        csrf: String? = nil
    ) throws -> Response {
        let values: [String: MustacheValue] = [
            "header": ["settings": true], "rows": try rowsValue(page.rows, web, context, rendered),
            "notice": MustacheValue(notice), "deleteFailure": .bool(failure),
            "pending": .bool(page.rows.contains { $0.state != .stored }),
            "shown": .int(page.rows.count), "more": moreValue(page, context.messages),
            "reviewNotices": ReviewNotices.value(web, context),
            "claimedReceipts": ClaimedReceipts.value(web, context),
        ]
        return try web.render(
            "list", title: context.messages["list.title"], values, context: context,
            modules: ["list", "settings"], csrf: csrf)
    }

    /// The "Show more" line, or null when every report is shown.
    static func moreValue(_ page: ReportPage, _ messages: Messages) -> MustacheValue {
        let shown = page.rows.count
        guard page.total > shown, shown < maximumShown else { return .null }
        let next = min(shown + pageSize, maximumShown, page.total)
        return [
            "next": .int(next),
            "summary": .string(messages.format("list.showing", ["shown": String(shown), "total": String(page.total)])),
            "label": .string(messages.format("list.showMore", ["count": String(next - shown)])),
        ]
    }
}

struct DeletionFailure: Encodable {
    var error: String
    var title: String
    var message: String
}

struct RowsAnswer: Encodable {
    var rows: [RowJSON]
    var html: String
    var moreHTML: String
    var shown: Int
    var total: Int
    var refreshed: Bool
    var pending: Bool
}

struct RowJSON: Encodable {
    var id: String
    var name: String?
    var formattedAddress: String?
    var creationTime: String
    var state: String
    var status: String
    var statusText: String
}
