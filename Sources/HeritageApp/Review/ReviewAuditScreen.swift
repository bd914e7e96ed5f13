import Basics
import HTTPServer
import Mustache

/// `/review/audit` (REV-08): the append-only log, newest first, filtered by actor, action and report,
/// paged by id; `/review/audit.csv` the same filter as CSV. Nothing here (or anywhere) edits a row.
enum ReviewAuditScreen {
    static let pageSize = 100

    static func filter(_ request: Request) -> AuditFilter {
        AuditFilter(
            actor: String(Text.trimmed(request.queryValue("actor") ?? "").prefix(200)),
            action: String(Text.trimmed(request.queryValue("action") ?? "").prefix(64)),
            reportID: request.queryValue("report").flatMap { Int64(Text.trimmed($0)) })
    }

    static func queryString(_ filter: AuditFilter) -> String {
        var pairs: [(String, String)] = []
        if !filter.actor.isEmpty { pairs.append(("actor", filter.actor)) }
        if !filter.action.isEmpty { pairs.append(("action", filter.action)) }
        if let report = filter.reportID { pairs.append(("report", String(report))) }
        return pairs.map { "\($0.0)=\(ReviewQuery.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// The words the audit log holds, for its filter: the actions on a report (`ReviewAction`), then
    /// those the other parts write (the reporter, roles, exports, kiosks, mail, backups, the register).
    static let actions =
        ReviewAction.allCases.map(\.rawValue) + [
            "purge", "reporter_reply", "reporter_photo", "role_grant", "role_revoke", "role_confirm", "export_csv",
            "export_geojson", "export_zip", "export_audit", "kiosk_create", "kiosk_enrolment_link", "kiosk_enrol",
            "kiosk_revoke", "kiosk_account", "kiosk_submit", "mail_unsubscribe", "backup_restore",
            "site_attach", "site_detach", "site_create", "export_sites_csv", "export_sites_geojson",
        ]

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/audit") { request, context, _, _ in
            let filter = filter(request)
            let before = request.queryValue("before").flatMap { Int64($0) }
            let entries = try review.store.audit(filter, beforeID: before, limit: pageSize + 1)
            let messages = context.messages
            let shown = entries.prefix(pageSize)
            let query = queryString(filter)
            var next: String?
            if entries.count > pageSize, let last = shown.last {
                next = "/review/audit?" + [query, "before=\(last.id)"].filter { !$0.isEmpty }.joined(separator: "&")
            }
            let values: [String: MustacheValue] = [
                "entries": .array(
                    shown.map { entry in
                        [
                            "at": ReviewLabels.time(entry.at), "actor": .string(entry.actor),
                            "action": .string(messages[ReviewAction.labelKey(entry.action)]),
                            "report": MustacheValue(entry.reportID.map { String($0) }),
                            "subject": MustacheValue(entry.subject), "before": MustacheValue(entry.before),
                            "after": MustacheValue(entry.after), "detail": MustacheValue(entry.detail),
                        ]
                    }),
                "actor": .string(filter.actor), "report": .string(filter.reportID.map { String($0) } ?? ""),
                "actionOptions": ReviewDashboard.options(
                    actions, selected: filter.action, prefix: ReviewAction.labelKey(""), messages),
                "next": MustacheValue(next), "query": .string(query),
            ]
            return try review.web.render(
                "review-audit", title: messages["review.audit.title"], values, context: context)
        }
        group.export("/audit.csv") { request, context, user, _ in
            let filter = filter(request)
            let file = try ExportFile(directory: review.settings.exportsDirectory, suffix: "csv")
            try file.write(
                CSV.byteOrderMark
                    + CSV.line(["id", "at", "actor", "action", "report_id", "subject", "before", "after", "detail"]))
            var before: Int64?
            while true {
                let entries = try review.store.audit(filter, beforeID: before, limit: ReviewExports.batch)
                for entry in entries {
                    try file.write(
                        CSV.line([
                            .number(String(entry.id)), .text(ISO8601.utc(seconds: entry.at)), .text(entry.actor),
                            .text(entry.action), .number(entry.reportID.map { String($0) } ?? ""),
                            .text(entry.subject ?? ""), .text(entry.before ?? ""), .text(entry.after ?? ""),
                            .text(entry.detail ?? ""),
                        ]))
                }
                guard entries.count == ReviewExports.batch, let last = entries.last else { break }
                before = last.id
            }
            try review.store.appendAudit(
                AuditEntry(at: WallClock.now(), actor: user.email, action: "export_audit", detail: queryString(filter)))
            return try file.response(request, context, type: "text/csv; charset=utf-8", name: "audit.csv")
        }
    }
}
