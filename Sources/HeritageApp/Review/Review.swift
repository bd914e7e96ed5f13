// Review: the coordinators' dashboard (docs/REVIEW.md). Roles (REV-01) are checked here, on
// the server, by every `/review` route; the review state lives apart from the delivery state
// (REV-02/03) in `ReviewStore`, which also keeps the append-only audit log (REV-08).
import Basics
import HTTPServer
import Mustache

/// What the review needs from the configuration and the worker.
struct ReviewSettings: Sendable {
    /// `coordinators`: the e-mails granted the coordinator's role by the configuration, spelt as
    /// `GrantEmail.normalized` keeps them (bound to an account as any grant is: REV-10).
    var configuredCoordinators: Set<String> = []
    var policy = ReviewPolicy.kiosk
    /// The scheduled backups' figures, for the administrators' notice when they are overdue.
    var backups: BackupMetrics?
    /// Where exports are written before they are streamed (`Configuration.exportsDirectory`).
    var exportsDirectory: String
    /// The dashboard map's tiles (the creation page's `map_tile_url`).
    var mapTileURL: String
    /// The node's exports, shared by every copy of these settings.
    var exports: ExportRunner
    /// Whether mail is sent at all (`smtp_url`), and the coordinators' immediate mail an hour.
    var mailConfigured = false
    var mailImmediatePerHour = 10

    init(configuration: Configuration) {
        mailConfigured = configuration.smtpURL != nil
        mailImmediatePerHour = configuration.mailImmediatePerHour
        exportsDirectory = configuration.exportsDirectory
        exports = Self.exportRunner(configuration)
        mapTileURL = configuration.mapTileURL
        configuredCoordinators = Self.emails(configuration.coordinators)
        policy = ReviewPolicy(rawValue: configuration.reviewPolicy) ?? .kiosk
    }

    /// A node's exports: the data folder's disk floor of uploads; a deadline a little under the
    /// server's own, so that the export's words come first.
    static func exportRunner(_ configuration: Configuration) -> ExportRunner {
        ExportRunner(
            directory: configuration.exportsDirectory, minimumFreeBytes: configuration.uploadMinFreeBytes,
            deadlineSeconds: max(1, Double(configuration.handlerDeadlineSeconds) - 1))
    }

    static func emails(_ list: String?) -> Set<String> {
        Set((list ?? "").split(separator: ",").map { GrantEmail.normalized(String($0)) }.filter { !$0.isEmpty })
    }
}

/// The review's parts, given to its screens.
struct Review: Sendable {
    let web: Web
    let store: any ReviewStore
    let settings: ReviewSettings
    /// Claims lapse after 30 minutes.
    static let claimSeconds = 1800.0
    /// The trash keeps a discarded report this long, restorable; then it is cancelled.
    static let trashSeconds = 30 * 86_400.0

    /// The user's role: the one their platform account holds (REV-10), never one read by e-mail. The
    /// configuration's coordinators are grants like any other (`ReviewStore.syncConfigured`).
    func role(of user: WebUser) throws -> Role {
        try store.role(userID: user.id) ?? .volunteer
    }

    /// The 403 page for a grant that waits for an administrator to confirm this account's first sign-in.
    func awaitingConfirmation(_ context: WebContext) -> Response {
        web.errorPage(
            status: 403, titleKey: "review.forbiddenTitle", messageKey: "review.awaitingConfirmation", context: context)
    }

    /// The answer to the head of a review request from someone signed out or below `role`, or nil.
    func headRefusal(_ request: Request, role: Role) -> Response? {
        if let signedOut = web.signedOutHeadRefusal(request, access: .page) { return signedOut }
        guard let context = try? web.context(for: request),
            case .refused(let page) = try? admit(request, context, atLeast: role)
        else { return nil }  // admitted, or the handler will say
        return page
    }

    /// The one admission of every review route, after the screen's own (`Web.admit`: signed in, CSRF on
    /// changes, no kiosk's tablet): the user holds at least `role`. Below it, the refusal is logged and
    /// answered with a 403 page; a user whose e-mail has a grant waiting for an administrator gets the
    /// page that says so, and an event of its own: the one using it may not be its owner (REV-10).
    func admit(_ request: Request, _ context: WebContext, atLeast role: Role) throws -> ReviewAdmission {
        let user = try context.requireUser()
        let held = try self.role(of: user)
        guard held < role else { return .admitted(user, held) }
        let pending = (try? store.isAwaitingConfirmation(userID: user.id)) ?? false
        web.log.security(
            pending ? "review.pending_refused" : "review.refused",
            ["path": request.path, "method": request.method, "client": request.remoteAddress, "user": String(user.id)])
        return .refused(pending ? awaitingConfirmation(context) : forbidden(context))
    }

    /// The 403 page in the user's language: no data of the review on it.
    func forbidden(_ context: WebContext) -> Response {
        web.errorPage(status: 403, titleKey: "review.forbiddenTitle", messageKey: "review.forbidden", context: context)
    }
}

extension RouteGroup where Gate == Review {
    /// A route of the "/review" group: signed in (else to /signin), at least `role` (else 403), CSRF-checked
    /// when it changes state (`Web.admit`, then `Review.admit`). The handler gets the user and their role.
    mutating func route(
        _ method: String, _ path: String, role: Role = .coordinator, options: RouteOptions = .init(),
        _ handler: @escaping @Sendable (Request, WebContext, WebUser, Role) throws -> Response
    ) {
        let review = gate
        let wrapped = review.web.authenticated(.page, csrfProtected: Web.changesState(method)) { request, context in
            switch try review.admit(request, context, atLeast: role) {
            case .refused(let page): return page
            case .admitted(let user, let held): return try handler(request, context, user, held)
            }
        }
        addInline(method, path, options: Self.reviewOptions(options, review, role: role), wrapped)
    }

    /// The same for an async handler (one that calls the platform, or runs its work on a pool).
    mutating func routeAsync(
        _ method: String, _ path: String, role: Role = .coordinator, options: RouteOptions = .init(),
        _ handler: @escaping @Sendable (Request, WebContext, WebUser, Role) async throws -> Response
    ) {
        let review = gate
        let wrapped = review.web.authenticated(.page, csrfProtected: Web.changesState(method)) { request, context in
            switch try review.admit(request, context, atLeast: role) {
            case .refused(let page): return page
            case .admitted(let user, let held): return try await handler(request, context, user, held)
            }
        }
        add(method, path, options: Self.reviewOptions(options, review, role: role), wrapped)
    }

    /// A route whose work is long (a bulk action over thousands of reports): as `route`, but the
    /// handler runs on the bulk actions' threads (`ExportRunner.bulk`), never on a poll thread.
    mutating func routeOnPool(
        _ method: String, _ path: String, role: Role = .coordinator, options: RouteOptions = .init(),
        _ handler: @escaping @Sendable (Request, WebContext, WebUser, Role) throws -> Response
    ) {
        let review = gate
        routeAsync(method, path, role: role, options: options) { request, context, user, held in
            try await review.settings.exports.bulk.run { try handler(request, context, user, held) }
        }
    }

    /// Last in the group: any other GET or POST under "/review" is let in as the group's routes are, and
    /// only then not found. A volunteer is refused on every review path alike (403), learning nothing
    /// of which pages there are; a coordinator gets the 404 page.
    mutating func unknownPathsAfterAdmission() {
        let review = gate
        for method in ["GET", "POST"] {
            route(method, "/*unknown") { _, context, _, _ in ReviewReportScreen.notFound(review, context) }
        }
    }

    /// The review's body limits (`Web.headGated`), and a large body (a bulk action's ids) read only for a
    /// coordinator: anyone else is answered on the head, before a byte of it arrives.
    private static func reviewOptions(_ options: RouteOptions, _ review: Review, role: Role) -> RouteOptions {
        var options = options
        if options.beforeBody == nil, Web.takesLargeBody(options) {
            options.beforeBody = { request in review.headRefusal(request, role: role) }
        }
        return Web.headGated(options, review.web, .page)
    }

    /// An export: a review route that writes a file and an audit row. Asked for by POST with the CSRF
    /// token (the dashboard's buttons); by GET only when the browser vouches it comes from this origin
    /// or the user (`ReviewExports.crossSiteRefusal`). Both read the filter from the query string.
    mutating func export(
        _ path: String, _ handler: @escaping @Sendable (Request, WebContext, WebUser, Role) throws -> Response
    ) {
        let review = gate
        for method in ["GET", "POST"] {
            routeAsync(method, path) { request, context, user, held in
                if method == "GET", let refused = ReviewExports.crossSiteRefusal(request, context, review) {
                    return refused
                }
                return try await review.settings.exports.run(user: user, review: review, context: context) {
                    try handler(request, context, user, held)
                }
            }
        }
    }
}

/// What `Review.admit` decided: the user and the role they hold, or the 403 page to answer with.
enum ReviewAdmission {
    case admitted(WebUser, Role)
    case refused(Response)
}
