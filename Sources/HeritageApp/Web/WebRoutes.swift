import HTTPServer

/// The volunteer's routes: the group at the root ("/", "/reports", "/api/…", "/settings", …), each let
/// in by `Web.admit` with the access it names (`.anyone`, `.page`, `.api`). Registered once from
/// `Application`; a new screen adds one line here (its own `register`), see docs/WEB.md.
enum WebRoutes {
    static func register(on router: inout Router, web: Web, drafts: Drafts, review: Review) {
        router.group("", web) { volunteer in
            // "/" is the door: signed-out visitors see sign-in (LOG-01), signed-in ones their list.
            volunteer.route("GET", "/", access: .anyone) { _, context in
                web.redirect(context.user == nil ? "/signin" : "/reports", context: context)
            }
            volunteer.route("POST", "/lang", access: .anyone) { request, context in
                LanguageSwitch.answer(request, context, web: web)
            }
            SignInScreen.register(on: &volunteer)
            ReportListScreen.register(on: &volunteer)
            SettingsScreen.register(on: &volunteer)
            NotificationsScreen.register(on: &volunteer)
            DraftRoutes.register(on: &volunteer, drafts: drafts)
            ReporterReply.register(on: &volunteer, review: review, drafts: drafts)
        }
    }
}

/// The EN/FR switch: a small form on every page; the choice is kept a year in `har_lang`.
enum LanguageSwitch {
    static func answer(_ request: Request, _ context: WebContext, web: Web) -> Response {
        guard let code = request.formValue("lang"), let language = Language(rawValue: code) else {
            return web.errorPage(
                status: 400, titleKey: "errors.badRequestTitle", messageKey: "errors.badRequest",
                context: context)
        }
        var context = context
        context.cookies.append(web.cookie(Web.languageCookieName, language.rawValue, maxAge: 365 * 24 * 3600))
        if let user = context.user { try? web.stores.mail.recordLanguage(userID: user.id, language: language.rawValue) }
        return web.redirect(localPath(request.formValue("back")), context: context)
    }

    /// Only a path on this site: "//evil.example" or "/\evil" would leave it (open redirect).
    static func localPath(_ candidate: String?) -> String {
        guard let candidate, candidate.hasPrefix("/"), !candidate.hasPrefix("//"), !candidate.contains("\\"),
            candidate.utf8.count <= 512, !Text.hasControlCharacters(candidate)
        else { return "/" }
        return candidate
    }
}
