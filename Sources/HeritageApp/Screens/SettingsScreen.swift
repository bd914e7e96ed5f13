import Basics
import FoundationEssentials
import HTTPServer
import Mustache
import PlatformClient

/// The settings (SET-01..03): a panel over the list (Public/js/settings.js saves it with JSON), and the
/// same form as a page of its own for a browser without JavaScript. Kept per user on the server, so they
/// apply on every device; other pages read them from `context.user?.settings` / `settings()` of
/// `Public/js/core/settings.js`.
enum SettingsScreen {
    static func register(on group: inout RouteGroup<Web>) {
        let web = group.gate
        group.route("GET", "/settings", access: .page) { request, context in
            let saved = request.queryValue("saved") == "1" ? context.messages["settings.saved"] : nil
            let ended = request.queryValue("ended").flatMap { Int($0) }.map {
                context.messages.format("settings.sessions.ended", ["n": String($0)])
            }
            return try page(web, context, errors: [:], saved: saved, ended: ended)
        }
        // "Sign out of every other device": every session of the user but this one ends.
        group.route("POST", "/settings/sessions/end-others", access: .page) { _, context in
            guard let session = context.session else { throw HTTPError(401) }
            let count = try web.sessions.endOthers(of: session)
            web.log.security("session.endOthers", ["user": String(session.userID), "ended": String(count)])
            return web.redirect("/settings?ended=\(count)", context: context)
        }
        MailSettings.register(on: &group)
        group.route("POST", "/settings", access: .page, options: RouteOptions(maxBodyBytes: 16_384)) {
            request, context in
            try save(request, context, web: web)
        }
    }

    static func save(_ request: Request, _ context: WebContext, web: Web) throws -> Response {
        let user = try context.requireUser()
        let input =
            context.wantsJSON && !request.body.isEmpty
            ? SettingsInput(json: request.body) : SettingsInput(form: request)
        var errors: [String: String] = [:]
        var settings = user.settings
        if let value = input.gpsAccuracy, UserSettings.gpsAccuracyRange.contains(value) {
            settings.gpsAccuracyMetres = value
        } else {
            errors["gpsAccuracy"] = context.messages["settings.errors.gpsAccuracy"]
        }
        if let value = input.gpsAlert, UserSettings.gpsAlertRange.contains(value) {
            settings.gpsAlertSeconds = value
        } else {
            errors["gpsAlert"] = context.messages["settings.errors.gpsAlert"]
        }
        settings.wirelessOnly = input.wirelessOnly
        guard errors.isEmpty else {
            if context.wantsJSON {
                return web.json(
                    SettingsRefusal(
                        error: "invalid", message: errors.values.sorted().joined(separator: " "),
                        fields: errors), status: 422, context: context)
            }
            var shown = context
            shown.user?.settings = settings  // re-show what was typed next to its message
            return try page(web, shown, errors: errors, saved: nil, typed: input, status: 422)
        }
        try web.stores.settings.save(settings: settings, userID: user.id, now: WallClock.now())
        if context.wantsJSON {
            return web.json(
                SavedSettings(
                    gpsAccuracyMetres: settings.gpsAccuracyMetres, gpsAlertSeconds: settings.gpsAlertSeconds,
                    wirelessOnly: settings.wirelessOnly, message: context.messages["settings.saved"]),
                context: context)
        }
        return web.redirect("/settings?saved=1", context: context)
    }

    static func page(
        _ web: Web, _ context: WebContext, errors: [String: String], saved: String?, typed: SettingsInput? = nil,
        ended: String? = nil, status: Int = 200
    ) throws -> Response {
        var values: [String: MustacheValue] = [
            "header": [:], "errors": .dictionary(errors.mapValues { .string($0) }), "saved": MustacheValue(saved),
            "sessions": try sessionRows(web, context), "sessionsEnded": MustacheValue(ended),
            "mail": try MailSettings.values(web, context),
        ]
        if let typed {
            // Out-of-range values are shown as typed (the stored ones would hide the mistake).
            var settings = context.settingsValue
            if case .dictionary(var fields) = settings {
                fields["gpsAccuracyMetres"] = .string(typed.rawAccuracy)
                fields["gpsAlertSeconds"] = .string(typed.rawAlert)
                settings = .dictionary(fields)
            }
            values["settings"] = settings
        }
        return try web.render(
            "settings", title: context.messages["settings.title"], values, context: context, status: status,
            modules: ["settings"])
    }
}

extension SettingsScreen {
    /// The user's active sessions as the settings page lists them: browser, last seen, address; this
    /// device marked. Never a token.
    static func sessionRows(_ web: Web, _ context: WebContext) throws -> MustacheValue {
        guard let user = context.user else { return .array([]) }
        let current = context.session?.tokenHash
        let rows = try web.sessions.active(userID: user.id, now: WallClock.now())
        return .array(
            rows.map { row in
                [
                    "browser": .string(
                        BrowserName.describe(row.userAgent, unknown: context.messages["settings.sessions.unknown"])),
                    "lastSeen": .string(BrowserName.utcMinute(row.lastSeenAt)),
                    "address": .string(row.clientAddress ?? "–"),
                    "current": .bool(row.tokenHash == current),
                ]
            })
    }
}

/// A User-Agent in a few words people recognise ("Firefox on Android"); the raw string is never shown.
enum BrowserName {
    static func describe(_ userAgent: String?, unknown: String) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return unknown }
        let browsers = [
            ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"),
            ("Chromium/", "Chromium"), ("Safari/", "Safari"), ("curl/", "curl"),
        ]
        let systems = [
            ("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
            ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux"),
        ]
        let browser = browsers.first { agent.contains($0.0) }?.1
        let system = systems.first { agent.contains($0.0) }?.1
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) · \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return system
        default: return unknown
        }
    }

    /// `2026-05-01 10:42 UTC`.
    static func utcMinute(_ seconds: Double) -> String {
        let stamp = ISO8601.utc(seconds: seconds)  // 2026-05-01T10:42:17Z
        return String(stamp.prefix(10)) + " " + String(stamp.dropFirst(11).prefix(5)) + " UTC"
    }
}

/// The three settings as a form or a JSON body sent them; nil where a number is missing or not whole.
struct SettingsInput: Sendable {
    var gpsAccuracy: Int?
    var gpsAlert: Int?
    var wirelessOnly = false
    var rawAccuracy = ""
    var rawAlert = ""

    init(form request: Request) {
        rawAccuracy = String((request.formValue("gps_accuracy_m") ?? "").prefix(32))
        rawAlert = String((request.formValue("gps_alert_seconds") ?? "").prefix(32))
        gpsAccuracy = Self.wholeNumber(rawAccuracy)
        gpsAlert = Self.wholeNumber(rawAlert)
        wirelessOnly = ["on", "true", "1"].contains(request.formValue("wireless_only") ?? "")
    }

    init(json body: [UInt8]) {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body)) else { return }
        gpsAccuracy = Self.wholeNumber(object["gpsAccuracyMetres"])
        gpsAlert = Self.wholeNumber(object["gpsAlertSeconds"])
        if case .bool(let on) = object["wirelessOnly"] { wirelessOnly = on }
    }

    static func wholeNumber(_ text: String) -> Int? {
        let trimmed = Text.trimmed(text)
        guard !trimmed.isEmpty, trimmed.count <= 9, trimmed.allSatisfy(\.isASCII) else { return nil }
        return Int(trimmed)
    }

    static func wholeNumber(_ value: JSONValue?) -> Int? {
        switch value {
        case .number(let number) where number.rounded() == number && abs(number) < 1e9: return Int(number)
        case .string(let text): return wholeNumber(text)
        default: return nil
        }
    }
}

struct SettingsRefusal: Encodable {
    var error: String
    var message: String
    var fields: [String: String]
}

struct SavedSettings: Encodable {
    var gpsAccuracyMetres: Int
    var gpsAlertSeconds: Int
    var wirelessOnly: Bool
    var message: String
}
