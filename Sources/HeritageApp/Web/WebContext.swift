import HTTPServer
import Mustache

/// What a handler is told about the request it answers: who is signed in, the CSRF token to put in
/// forms, the language and its messages, and cookies to add to whatever response it makes.
struct WebContext: Sendable {
    /// Set for `.page` and `.api` routes (the wrapper answered already when nobody is signed in).
    var user: WebUser?
    var session: WebSession?
    /// The signed-in user's list version (`ReportStore.listVersion`), read with the session before
    /// anything the handler reads: the list's ETag.
    var listVersion: Int64 = 0
    /// The token forms carry as `_csrf` and `fetch` as `X-CSRF-Token`: the session's when signed in,
    /// else an anonymous double-submit token held in the `har_csrf` cookie (sign-in, language switch).
    var csrfToken: String
    var messages: Messages
    /// The path of this request, for "come back here" links (language switch).
    var path: String
    /// The client asked for JSON (fetch with `Accept: application/json`, or a JSON body).
    var wantsJSON: Bool
    /// Cookies every response to this request gets (a new anonymous CSRF cookie).
    var cookies: [SetCookie] = []
    /// The anonymous CSRF token was made for this very request (no cookie came with it).
    var csrfTokenIsNew = false
    /// The request came with a session that has just ended (idle timeout or absolute lifetime).
    var sessionEnded = false

    var language: Language { messages.language }

    /// The signed-in user, for handlers registered as `.page` or `.api`.
    func requireUser() throws -> WebUser {
        guard let user else { throw HTTPError(401) }
        return user
    }

    /// Adds the context's cookies to a response.
    func finish(_ response: Response) -> Response {
        var response = response
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// The user's settings as pages give them to scripts (`settingsJSON`) and templates (`settings`).
    var settingsValue: MustacheValue {
        let settings = user?.settings ?? UserSettings()
        // A Swift dictionary on purpose: the settings screen edits it with `case .dictionary(var fields)`.
        return .dictionary([
            "gpsAccuracyMetres": .int(settings.gpsAccuracyMetres), "gpsAlertSeconds": .int(settings.gpsAlertSeconds),
            "wirelessOnly": .bool(settings.wirelessOnly),
        ])
    }

    var settingsJSON: String {
        let settings = user?.settings ?? UserSettings()
        return "{\"gpsAccuracyMetres\":\(settings.gpsAccuracyMetres),\"gpsAlertSeconds\":\(settings.gpsAlertSeconds),"
            + "\"wirelessOnly\":\(settings.wirelessOnly)}"
    }
}

/// Who may reach a route, and how a refusal looks.
enum Access: Sendable {
    /// Signed in or not (sign-in page, language switch).
    case anyone
    /// A page: signed-out visitors are sent to /signin (LOG-01).
    case page
    /// A fetch/JSON endpoint: signed-out callers get 401 JSON with where to go.
    case api
}

/// Thrown by `Web.withPlatform` when the platform session is over: the wrappers turn it into a redirect
/// to /signin (pages) or a 401 JSON answer (fetch), after the web sessions were deleted.
struct SignedOut: Error {}
