import Basics
import HTTPServer

/// The one-click unsubscribe of RFC 8058: a mail client POSTs `List-Unsubscribe=One-Click` to the link
/// of `List-Unsubscribe`, with no cookie and no CSRF token; the link's secret is the only credential, so
/// these routes skip the sign-in and CSRF checks (a kiosk's tablet is still refused, as everywhere). A
/// GET (a person following the link in the text part) only shows a button that POSTs: a link scanner's
/// GET changes nothing. Each message has its own secret, which turns off the kind of mail it came with
/// (a reporter's questions or decisions, a coordinator's review mail, an administrator's note) and
/// nothing else, works once, and is audited; the access log never shows it (`Log.redacted`).
enum UnsubscribeRoutes {
    static func register(on router: inout Router, web: Web) {
        let store = web.stores.mail
        let show = web.authenticated(.anyone, csrfProtected: false) {
            (request: Request, context: WebContext) throws -> Response in
            let messages = context.messages
            guard let token = validToken(request) else {
                return page(messages, body: messages["mail.unknownLink"], 404)
            }
            let form =
                "<form method=\"post\" action=\"/mail/unsubscribe/\(token)\">"
                + "<input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">"
                + "<button type=\"submit\">\(HTMLText.escape(messages["mail.unsubscribe"]))</button></form>"
            return page(messages, body: messages["mail.unsubscribeHint"], 200, extra: form)
        }
        let unsubscribe = web.authenticated(.anyone, csrfProtected: false) {
            (request: Request, context: WebContext) throws -> Response in
            let messages = context.messages
            guard let token = validToken(request), let topic = try store.unsubscribe(token: token, now: WallClock.now())
            else {
                return page(messages, body: messages["mail.unknownLink"], 404)
            }
            return page(messages, body: messages["mail.unsubscribedFrom.\(topic.rawValue)"], 200)
        }
        router.addInline(
            method: "GET", pattern: "/mail/unsubscribe/:token", options: Web.declared(RouteOptions()), handler: show)
        router.addInline(
            method: "POST", pattern: "/mail/unsubscribe/:token",
            options: Web.declared(RouteOptions(maxBodyBytes: 4096)), handler: unsubscribe)
    }

    /// Our secrets are 32 hexadecimal digits; anything else is not looked up.
    private static func validToken(_ request: Request) -> String? {
        guard let token = request.parameters["token"], token.utf8.count == 32,
            token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return token
    }

    private static func page(_ messages: Messages, body: String, _ status: Int, extra: String = "") -> Response {
        let title = HTMLText.escape(messages["app.name"])
        return .html(
            "<!DOCTYPE html><html lang=\"\(messages.language.rawValue)\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>\(title)</title>"
                + "</head><body><main><h1>\(title)</h1><p>\(HTMLText.escape(body))</p>\(extra)</main></body></html>",
            status: status)
    }
}
