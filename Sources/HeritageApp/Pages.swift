import HTTPServer
import Mustache

/// Renders the application's pages from the templates. Error pages say what happened in words and
/// show nothing of the server's internals.
struct Pages: Sendable {
    let templates: TemplateLibrary

    func error(status: Int, request: Request) -> Response {
        let (title, message) = Self.errorText(status)
        let context: MustacheValue = [
            "lang": "en", "title": .string(title), "message": .string(message), "status": .string(String(status)),
            "back": "Back to the start",
        ]
        guard let html = try? templates.render("error", context) else {
            return Router.defaultErrorPage(status: status, request: request)
        }
        var response = Response.html(html, status: status)
        if status == 405 || status >= 500 { response.headers.add("Cache-Control", "no-store") }
        return response
    }

    static func errorText(_ status: Int) -> (String, String) {
        switch status {
        case 400: return ("Bad request", "The request could not be understood. Please go back and try again.")
        case 403: return ("Not allowed", "You are not allowed to see this page.")
        case 404: return ("Page not found", "There is nothing at this address.")
        case 405: return ("Not allowed here", "This address does not accept that kind of request.")
        case 413: return ("Too large", "What you sent is larger than this server accepts.")
        case 503: return ("Busy", "The server is busy or stopping. Please try again in a moment.")
        default: return ("Something went wrong", "The server could not answer this time. Please try again later.")
        }
    }
}
