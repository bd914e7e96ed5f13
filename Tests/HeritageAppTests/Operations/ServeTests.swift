import Foundation
import SQLiteStorage
import Testing

/// `har serve` as an operator runs it: the real binary, a real socket, a real SQLite file.
@Suite struct ServeTests {
    @Test func healthzAnswersWithVersionAndStore() async throws {
        let server = try await ServeProcess()
        let response = try await curl(server.baseURL + "/healthz")
        #expect(response.status == 200)
        #expect(response.body == #"{"status":"ok","version":"0.1.0","store":"ok"}"#)
        #expect(response.headers["content-type"] == "application/json")
        #expect(FileManager.default.fileExists(atPath: server.dataDir + "/har.sqlite"))
        #expect(await server.stop().status == 0)
    }

    @Test func staticFilesCarrySecurityHeaders() async throws {
        let server = try await ServeProcess()
        let response = try await curl(server.baseURL + "/static/css/app.css")
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("text/css") == true)
        #expect(response.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["x-content-type-options"] == "nosniff")
        #expect(response.headers["referrer-policy"] != nil)
        #expect(response.body.contains("--brand: #8F2227"))
    }

    /// `static_warm` (on by default): the static files are loaded and compressed when the server starts,
    /// not by the first request for each (that held an MHD thread and its other connections).
    @Test func staticFilesAreLoadedAtStartNotByTheirFirstRequest() async throws {
        let server = try await ServeProcess()
        let marker = "static files loaded ahead of their first request: "
        try await waitUntil("har serve says it loaded the static files") { server.harProcess.errors.contains(marker) }
        let line = server.harProcess.errors.split(separator: "\n").first { $0.contains(marker) } ?? ""
        // Every file of Public/ (46 today), at its versioned URL.
        #expect((Int(line.split(separator: " ").last ?? "") ?? 0) > 20)
        let response = try await curl(server.baseURL + "/static/css/app.css", ["-H", "Accept-Encoding: br"])
        #expect(response.status == 200)
        #expect(response.headers["content-encoding"] == "br")
        #expect(await server.stop().status == 0)
    }

    @Test func notFoundIsTheProductsPageWithNoInternals() async throws {
        let server = try await ServeProcess()
        let response = try await curl(server.baseURL + "/no/such/page?x=1")
        #expect(response.status == 404)
        #expect(response.body.contains("Page not found"))
        #expect(response.body.contains("/static/css/app.css"))
        #expect(response.headers["content-security-policy"] != nil)
        let traversal = try await curl(server.baseURL + "/static/%2e%2e/%2e%2e/Package.swift", ["--path-as-is"])
        #expect(traversal.status == 404)
        #expect(!traversal.body.contains("PackageDescription"))
    }

    @Test func accessLogHasOneLinePerRequestWithoutQueryOrCookie() async throws {
        let server = try await ServeProcess()
        _ = try await curl(server.baseURL + "/healthz?token=secret-value", ["-H", "Cookie: session=cookie-secret"])
        let status = await server.stop().status
        #expect(status == 0)
        let log = server.accessLog()
        let lines = log.split(separator: "\n").filter { $0.contains("/healthz") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("GET /healthz 200") == true)
        #expect(!log.contains("secret-value"))
        #expect(!log.contains("cookie-secret"))
    }

    @Test func metricsAreForLoopbackAndCountRequests() async throws {
        let server = try await ServeProcess()
        _ = try await curl(server.baseURL + "/healthz")
        let metrics = try await curl(server.baseURL + "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("har_http_requests_total{status=\"2xx\"}"))
        #expect(metrics.body.contains("har_store_up 1"))
    }

    @Test func sigtermStopsCleanlyWithStatusZero() async throws {
        let server = try await ServeProcess()
        let (status, stderr) = await server.stop()
        #expect(status == 0)
        #expect(stderr.contains("stopped"))
    }

    @Test func aBadConfigurationKeyIsNamedAtStart() async throws {
        let file = try TestPaths.temporaryFile(contents: #"{"port": 8080, "max_bodyy_bytes": 5}"#)
        let result = try await runHar(["serve", "--config", file])
        #expect(result.status == 78)
        #expect(result.stderr.contains("unknown configuration key \"max_bodyy_bytes\""))
        let variable = try await runHar(["serve"], environment: ["HAR_PORT": "eighty"])
        #expect(variable.status == 78)
        #expect(variable.stderr.contains("HAR_PORT"))
    }

    @Test func aCorruptDatabaseIsReportedWithItsPath() async throws {
        let dataDir = try TestPaths.temporaryDirectory()
        let database = dataDir + "/har.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: database))
        let result = try await runHar(["serve"], environment: ["HAR_DATA_DIR": dataDir, "HAR_PORT": "0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(database))
        #expect(result.stderr.contains("not a database"))
    }

    @Test func aBrokenTemplateStopsStartWithFileAndLine() async throws {
        let templates = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: templates + "/partials", withIntermediateDirectories: true)
        try "<p>\n{{#rows}}\n<li>{{name}}</li>\n".write(
            toFile: templates + "/error.mustache", atomically: true, encoding: .utf8)
        let dataDir = try TestPaths.temporaryDirectory()
        let result = try await runHar(
            ["serve"], environment: ["HAR_DATA_DIR": dataDir, "HAR_PORT": "0", "HAR_TEMPLATES_DIR": templates])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error.mustache:2:"))
    }

    @Test func helpListsEveryVariable() async throws {
        let result = try await runHar(["--help"])
        #expect(result.status == 0)
        for name in [
            "HAR_HOST", "HAR_PORT", "HAR_DATA_DIR", "HAR_PLATFORM_URL", "HAR_CONSUMER_KEY", "HAR_CONSUMER_SECRET",
            "HAR_TLS_CERT", "HAR_TLS_KEY", "HAR_PLATFORM_PORT", "HAR_PLATFORM_DB", "HAR_PLATFORM_APPS",
            "HAR_PLATFORM_SESSION_TTL", "HAR_PLATFORM_FAULTS",
        ] {
            #expect(result.stdout.contains(name), "har --help lacks \(name)")
        }
    }
}

@Suite struct ErrorPageLanguageTests {
    @Test func errorPagesFollowTheVisitorsLanguage() async throws {
        let server = try RunningServer()
        let french = try await curl(server.baseURL + "/nowhere", ["-H", "Accept-Language: fr-FR,fr;q=0.9,en;q=0.5"])
        #expect(french.status == 404)
        #expect(french.body.contains("Page introuvable"))
        #expect(french.body.contains("lang=\"fr\""))
        let chosen = try await curl(
            server.baseURL + "/nowhere", ["-H", "Accept-Language: fr", "-H", "Cookie: har_lang=en"])
        #expect(chosen.body.contains("Page not found"))
        let method = try await curl(server.baseURL + "/healthz", ["-X", "DELETE", "-H", "Accept-Language: fr"])
        #expect(method.status == 405)
        #expect(method.body.contains("Non autorisé ici"))
    }
}

@Suite struct DataFolderLockTests {
    @Test func aSecondServeOnTheSameDataFolderIsRefused() async throws {
        let first = try await ServeProcess()
        let second = try await runHar(["serve"], environment: ["HAR_DATA_DIR": first.dataDir, "HAR_PORT": "0"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("another har serve is already using the data folder"))
        #expect(try await curl(first.baseURL + "/healthz").status == 200)
        _ = await first.stop()
        // Released at exit: the folder can be served again.
        let again = try await ServeProcess(dataDir: first.dataDir)
        #expect(await again.stop().status == 0)
    }
}

@Suite struct PlatformIdentityTests {
    @Test func aDataFolderWithReportsKeepsItsPlatform() async throws {
        let first = try await ServeProcess()
        let dataDir = first.dataDir
        _ = await first.stop()
        let database = try Database(path: dataDir + "/har.sqlite")
        try database.execute(
            """
            INSERT INTO users (email, created_at, updated_at) VALUES ('a@example.org', 0, 0);
            INSERT INTO reports (user_id, local_id, state, creation_time, updated_at)
                SELECT id, 'r1', 'stored', 0, 0 FROM users;
            """)
        database.close()
        let switched = try await runHar(
            ["serve"],
            environment: [
                "HAR_DATA_DIR": dataDir, "HAR_PORT": "0", "HAR_PLATFORM_URL": "http://127.0.0.1:9",
                "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
            ])
        #expect(switched.status == 1)
        #expect(
            switched.stderr.contains(
                "belong to the embedded local platform, but the platform is now http://127.0.0.1:9"))
        #expect(!switched.stderr.contains("\"s\""))
        // The same platform as before starts as usual.
        let again = try await ServeProcess(dataDir: dataDir)
        #expect(await again.stop().status == 0)
    }
}
