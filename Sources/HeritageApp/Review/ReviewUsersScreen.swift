import Basics
import HTTPServer
import Mustache

/// `/review/users` (admins only): who has which role, and grant, confirm or revoke by form. A pending
/// grant (no account bound yet) is shown so, with the first sign-in waiting for confirmation (REV-10).
enum ReviewUsersScreen {
    static func register(on group: inout RouteGroup<Review>) {
        let review = group.gate
        group.route("GET", "/users", role: .admin) { request, context, _, _ in
            try page(
                review, context, notice: request.queryValue("done").map { _ in context.messages["review.outcome.done"] }
            )
        }
        group.route("POST", "/users", role: .admin, options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context, user, _ in
            let email = GrantEmail.normalized(String((request.formValue("email") ?? "").prefix(320)))
            guard email.contains("@"), !Text.hasControlCharacters(email) else {
                return try page(review, context, notice: context.messages["signin.errors.emailInvalid"], status: 422)
            }
            let now = WallClock.now()
            switch request.formValue("op") {
            case "grant":
                guard let role = Role(rawValue: request.formValue("role") ?? ""), role != .volunteer else {
                    return try page(review, context, notice: context.messages["review.users.badRole"], status: 422)
                }
                try review.store.grant(email: email, role: role, actor: user.email, now: now)
            case "confirm":
                // The button names the account it confirms: a sign-in recorded since the page was shown
                // (another account) is not the one the administrator looked at.
                let account = String((request.formValue("account") ?? "").prefix(200))
                switch try review.store.confirm(email: email, accountID: account, actor: user.email, now: now) {
                case .confirmed: break
                case .nothingToConfirm:
                    return try page(
                        review, context, notice: context.messages["review.users.nothingToConfirm"], status: 409)
                case .otherAccount:
                    return try page(review, context, notice: context.messages["review.users.otherAccount"], status: 409)
                case .otherSpelling(let spelt):
                    let notice = context.messages.format("review.users.otherSpelling", ["email": spelt])
                    return try page(review, context, notice: notice, status: 409)
                }
            case "revoke":
                guard email != user.email.lowercased() else {
                    return try page(review, context, notice: context.messages["review.users.notSelf"], status: 422)
                }
                try review.store.revoke(email: email, actor: user.email, now: now)
            default:
                return try page(review, context, notice: context.messages["errors.badRequest"], status: 400)
            }
            return review.web.redirect("/review/users?done=1", context: context)
        }
    }

    static func page(_ review: Review, _ context: WebContext, notice: String?, status: Int = 200) throws -> Response {
        let messages = context.messages
        let grants = try review.store.grants()
        let values: [String: MustacheValue] = [
            "grants": .array(
                grants.map { grant in
                    [
                        "email": .string(grant.email), "role": .string(messages["review.role.\(grant.role.rawValue)"]),
                        "grantedBy": .string(grant.grantedBy),
                        "grantedAt": ReviewLabels.time(grant.grantedAt),
                        "state": state(of: grant, messages),
                        "confirmable": .bool(grant.isPending && grant.firstSignInAccount != nil),
                        "account": MustacheValue(grant.firstSignInAccount),
                    ]
                }),
            "notice": MustacheValue(notice),
        ]
        return try review.web.render(
            "review-users", title: messages["review.users.title"], values, context: context, status: status)
    }

    /// Bound (verified by the platform, or confirmed by whom), pending with no sign-in yet, or pending
    /// with a first sign-in to confirm (its account, the e-mail it typed, when, from where): a sentence
    /// with its time for the page's script to make local (`ReviewLabels.sentence`).
    static func state(of grant: RoleGrant, _ messages: Messages) -> MustacheValue {
        guard grant.isPending else {
            switch grant.binding {
            case .verified:
                return ReviewLabels.sentence(messages["review.users.boundVerified"], when: grant.boundAt, [:])
            case .confirmed:
                return ReviewLabels.sentence(
                    messages["review.users.boundConfirmed"], when: grant.boundAt, ["who": grant.boundBy ?? "?"])
            case .earlier, nil:
                return ReviewLabels.sentence(messages["review.users.bound"], when: nil, [:])
            }
        }
        guard let at = grant.firstSignInAt, let account = grant.firstSignInAccount else {
            return ReviewLabels.sentence(messages["review.users.pending"], when: nil, [:])
        }
        return ReviewLabels.sentence(
            messages["review.users.pendingSignIn"], when: at,
            [
                "address": grant.firstSignInAddress ?? "?", "account": account,
                "email": grant.firstSignInEmail ?? grant.email,
            ])
    }
}
