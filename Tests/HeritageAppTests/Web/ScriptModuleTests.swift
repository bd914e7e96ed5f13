import Foundation
import Testing

@testable import HeritageApp

/// The browser's code is ES modules only: every script of ours a page names is `type="module"`, and
/// none leaves a `window.HAR…` global for another to find (each imports what it uses). The vendored
/// Leaflet stays a classic script: it is not ours.
@Suite struct ScriptModuleTests {
    /// The `<script … src="/static/js/…">` tags of `html` that are not modules.
    static func classicScripts(in html: String) -> [String] {
        html.matches(of: /<script[^>]*\ssrc="\/static\/js\/[^"]+"/).map { String($0.output) }
            .filter { !$0.contains("type=\"module\"") }
    }

    @Test func pagesNameOnlyModulesOfOurs() async throws {
        let server = try RunningServer()
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let signIn = try await client.get("/signin")
        #expect(signIn.body.contains(#"<script type="module" src="/static/js/signin.js"#))
        #expect(Self.classicScripts(in: signIn.body).isEmpty, "\(Self.classicScripts(in: signIn.body))")
        _ = try await client.signIn(uniqueEmail())
        for page in ["/reports", "/reports/new", "/settings"] {
            let answer = try await client.get(page)
            #expect(answer.status == 200, "\(page)")
            #expect(answer.body.contains(#"<script type="module" src="/static/js/app.js"#), "\(page)")
            #expect(Self.classicScripts(in: answer.body).isEmpty, "\(page): \(Self.classicScripts(in: answer.body))")
        }
    }

    /// Every template (the review's and the kiosk's pages too), read as written.
    @Test func templatesNameOnlyModulesOfOurs() throws {
        let folder = TestPaths.packageRoot + "/Templates"
        let files = try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".mustache") }
        #expect(files.count > 20)
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(Self.classicScripts(in: text).isEmpty, "\(file): \(Self.classicScripts(in: text))")
        }
    }

    /// No script under Public/js sets or reads a `window.HAR…`/`self.HAR…` global, nor names one bare
    /// (`HAROutbox.send`, `HAR.csrf()`: an undeclared name in a module is a global); the service
    /// workers' first line (`self.HAR_SHELL_VERSION`, `self.HAR_ASSETS`, written by the server into
    /// the worker's own scope) is the one exception, and it is not a page's.
    @Test func noScriptUsesAHARGlobal() throws {
        let folder = TestPaths.packageRoot + "/Public/js"
        let files = try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".js") }
        #expect(files.contains("kiosk/sw.js") && files.contains("kiosk/outbox.js") && files.contains("kiosk/enrol.js"))
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            let globals = text.matches(of: /(?:window|self)\.HAR(?!_SHELL_VERSION|_ASSETS)\w*|\bHAR(?:[A-Z]\w*|\.\w+)/)
                .map {
                    String($0.output)
                }
            #expect(globals.isEmpty, "\(file): \(globals)")
        }
    }
}
