import HTTPServer
import Mustache

/// The volunteer's mail choices on the settings page: a plain form (no JavaScript needed), saved per
/// user, so the mail worker's queueing (in the decision's transaction) reads them where it runs.
enum MailSettings {
    static func register(on group: inout RouteGroup<Web>) {
        let web = group.gate
        group.route("POST", "/settings/mail", access: .page, options: RouteOptions(maxBodyBytes: 4096)) {
            request, context in
            let user = try context.requireUser()
            // An unticked checkbox is not sent at all: absence means off.
            let choices = MailChoices(
                needsInfo: request.formValue("needs_info") == "1", decisions: request.formValue("decisions") == "1")
            try web.stores.mail.saveMailChoices(choices, userID: user.id)
            return web.redirect("/settings?saved=1", context: context)
        }
    }

    /// What the settings page shows of them.
    static func values(_ web: Web, _ context: WebContext) throws -> MustacheValue {
        guard let user = context.user else { return .null }
        let choices = try web.stores.mail.mailChoices(userID: user.id)
        return ["needsInfo": .bool(choices.needsInfo), "decisions": .bool(choices.decisions)]
    }
}
