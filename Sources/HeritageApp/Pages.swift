import HTTPServer
import Mustache

/// The error pages (404, 405, 413, 500 …) in the visitor's language, from the message catalogues.
/// They say what happened in words and show nothing of the server's internals.
struct Pages: Sendable {
    let templates: TemplateLibrary
    let catalog: MessageCatalog

    func error(status: Int, request: Request) -> Response {
        let language = Language.negotiate(
            cookie: request.cookie(Web.languageCookieName), acceptLanguage: request.headers["Accept-Language"])
        let messages = catalog.messages(for: language)
        let key = [400, 403, 404, 405, 413, 503].contains(status) ? String(status) : "other"
        let context: MustacheValue = [
            "lang": .string(language.rawValue), "title": .string(messages["httpErrors.\(key).title"]),
            "message": .string(messages["httpErrors.\(key).message"]), "status": .string(String(status)),
            "back": .string(messages["common.back"]),
        ]
        guard let html = try? templates.render("error", context) else {
            return Router.defaultErrorPage(status: status, request: request)
        }
        var response = Response.html(html, status: status)
        if status == 405 || status >= 500 { response.headers.add("Cache-Control", "no-store") }
        return response
    }
}
