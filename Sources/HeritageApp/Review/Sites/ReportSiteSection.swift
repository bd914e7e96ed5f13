import Basics
import HTTPServer
import Mustache

/// The site part of a report's page (SITE-04): the site the report belongs to with Detach, or the
/// likely ones (the register's sites within `radius` of the report, nearest first, a name alike pulling
/// one forward: `SiteNames.order`) with Attach, a site's number or reference typed instead, and
/// "Create a site from this report". Plain forms with the CSRF token, answered by
/// `POST /review/reports/{id}/site`; each change audited with the report (`site_attach`, `site_detach`,
/// `site_create`). The same section shows in triage, its forms carrying the triage's fields.
enum ReportSiteSection {
    static let radius = 1000.0
    static let candidates = 8

    static func values(_ review: Review, row: ReviewRow, messages: Messages) throws -> [String: MustacheValue] {
        let store = review.web.stores.siteReview
        if let siteID = row.siteID, let site = try store.registerSite(id: siteID) {
            return ["site": .dictionary(siteValue(site, messages: messages))]
        }
        guard let latitude = row.latitude, let longitude = row.longitude else { return ["siteCandidates": .array([])] }
        let near = try store.sitesNear(latitude: latitude, longitude: longitude, metres: radius, limit: 50)
        let ordered = SiteNames.order(near, name: row.name).prefix(candidates)
        return [
            "siteCandidates": .array(
                ordered.map { candidate in
                    var fields = siteValue(candidate.site, messages: messages)
                    fields["distance"] = .string(distance(candidate.metres))
                    fields["alike"] = .bool(candidate.similarity >= 0.5)
                    return .dictionary(fields)
                })
        ]
    }

    static func siteValue(_ site: RegisterSite, messages: Messages) -> [String: MustacheValue] {
        [
            "id": .string(String(site.id)), "name": .string(site.name), "reference": MustacheValue(site.reference),
            "designation": .string(ReviewLabels.code("designation", site.designation, messages)),
            "grade": .string(ReviewLabels.code("grade", site.grade, messages)),
        ]
    }

    /// "80 m", "1.2 km": the same in every language.
    static func distance(_ metres: Double) -> String {
        metres < 1000
            ? ReviewPresentation.decimal(metres, digits: 0) + " m"
            : ReviewPresentation.decimal(metres / 1000, digits: 1) + " km"
    }

    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("POST", "/reports/:id/site", options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context, user, _ in
            guard let id = request.parameters["id"].flatMap({ Int64($0) }), try review.store.row(id: id) != nil else {
                return ReviewReportScreen.notFound(review, context)
            }
            let query = ReviewQuery(request.formFields)
            let triage = request.formValue("triage") == "1"
            let store = review.web.stores.siteReview
            let now = WallClock.now()
            let outcome: ReviewOutcome
            var done = request.formValue("op") ?? ""
            switch done {
            case "attach":
                guard let site = try pickedSite(request, store) else {
                    return try again(review, context, user, id: id, key: "siteReview.errors.unknownSite", query, triage)
                }
                outcome = try store.attach(reportID: id, siteID: site, actor: user.email, now: now)
                done = "site_attach"
            case "detach":
                outcome = try store.detach(reportID: id, actor: user.email, now: now)
                done = "site_detach"
            case "create":
                outcome = try store.createSite(fromReport: id, actor: user.email, now: now).0
                done = "site_create"
            default:
                return try again(review, context, user, id: id, key: "siteReview.errors.noAction", query, triage)
            }
            switch outcome {
            case .done:
                let back = (query.queryString.isEmpty ? "" : "&" + query.queryString) + (triage ? "&triage=1" : "")
                return review.web.redirect(
                    "/review/reports/\(id)?done=\(done)" + back + "#report-site", context: context)
            case .notFound:
                return try again(review, context, user, id: id, key: "siteReview.errors.unknownSite", query, triage)
            case .notApplicable(let state) where state.hasPrefix("site_"):
                return try again(review, context, user, id: id, key: "siteReview.errors.\(state)", query, triage)
            default:
                return try again(review, context, user, id: id, key: "siteReview.errors.unknownSite", query, triage)
            }
        }
    }

    /// The site picked among the likely ones, or typed: a site's number, else its reference.
    static func pickedSite(_ request: Request, _ store: any SiteReviewStore) throws -> Int64? {
        let typed = Text.trimmed(String((request.formValue("site_other") ?? "").prefix(200)))
        if !typed.isEmpty {
            if let id = Int64(typed), let site = try store.registerSite(id: id) { return site.id }
            return try store.registerSite(reference: typed)?.id
        }
        return request.formValue("site_id").flatMap { Int64(Text.trimmed($0)) }
    }

    /// The report's page again with what went wrong (422: the report is there, the request was not right).
    static func again(
        _ review: Review, _ context: WebContext, _ user: WebUser, id: Int64, key: String, _ query: ReviewQuery,
        _ triage: Bool
    ) throws -> Response {
        guard let row = try review.store.row(id: id) else { return ReviewReportScreen.notFound(review, context) }
        return try ReviewReportScreen.page(
            review, context, row: row, user: user, notice: context.messages[key], status: 422, isError: true,
            query: query, triage: triage)
    }
}
