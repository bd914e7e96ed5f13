import HTTPServer

/// The application's cookies and their flags: every cookie is `HttpOnly` and `SameSite=Lax`; with `secure`
/// (a `tls_cert`, or `cookie_secure` behind a TLS proxy) every cookie is `Secure` and the session's and
/// the CSRF token's take the `__Host-` prefix. The header itself is written by `SetCookie`
/// (Sources/HTTPServer/SetCookie.swift).
extension Web {
    var sessionCookieName: String { secure ? "__Host-har_session" : "har_session" }
    var csrfCookieName: String { secure ? "__Host-har_csrf" : "har_csrf" }
    static let languageCookieName = "har_lang"

    func cookie(_ name: String, _ value: String, maxAge: Int?) -> SetCookie {
        SetCookie(name: name, value: value, path: "/", maxAge: maxAge, httpOnly: true, secure: secure, sameSite: .lax)
    }

    /// A cookie that tells the browser to forget `name`.
    func expiredCookie(_ name: String) -> SetCookie { cookie(name, "", maxAge: 0) }
}
