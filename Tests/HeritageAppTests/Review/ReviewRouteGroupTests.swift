import Foundation
import Testing

@testable import HeritageApp

/// The "/review" route group (docs/WEB.md "Routes"): one admission for every path under its prefix, and
/// `ReviewRoutes.routes`, where a newcomer looks for a review route and its screen, is the group's table.
@Suite struct ReviewRouteGroupTests {
    /// REV-01: a volunteer is refused (403, in their language, no data) on every path under "/review",
    /// one with no page as one with a page; a coordinator gets the 404 page for a path with none; a
    /// signed-out visitor goes to sign-in either way. Outside the prefix the router answers as before.
    @Test func rev01TheReviewGroupAdmitsEveryPathUnderItsPrefix() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Secret chapel")
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let anonymous = try HTTPClient(baseURL: server.baseURL)
        for path in ["/review/no-such-page", "/review/reports/1/no-such-step", "/review/triage/more"] {
            let refused = try await volunteer.get(path)
            #expect(refused.status == 403, "volunteer GET \(path): \(refused.status)")
            #expect(refused.body.contains("This page is for coordinators"))
            #expect(!refused.body.contains("Secret chapel"))
            let posted = try await ReviewTests.post(volunteer, path, [("action", "approve")])
            #expect(posted.status == 403, "volunteer POST \(path): \(posted.status)")

            let missing = try await coordinator.get(path)
            #expect(missing.status == 404, "coordinator GET \(path): \(missing.status)")
            #expect(missing.body.contains("There is nothing at this address."))

            let signedOut = try await anonymous.curl(path, [])
            #expect(signedOut.status == 303, "anonymous GET \(path): \(signedOut.status)")
            #expect(signedOut.headers["location"]?.hasPrefix("/signin") == true)
        }
        volunteer.http.setCookie("har_lang", "fr")
        let french = try await volunteer.get("/review/no-such-page")
        #expect(french.status == 403 && french.body.contains("Cette page est réservée aux coordinateurs"))
        // The group's own pages answer as they did.
        #expect(try await coordinator.get("/review/audit").status == 200)
        #expect(try await volunteer.get("/review/audit").status == 403)
        // A path that only begins with the same letters is not in the group.
        #expect(try await volunteer.get("/reviews").status == 404)
        await server.stop()
    }

    /// `ReviewRoutes.routes` names every route of the "/review" group by method and an example path,
    /// and nothing else: the table stays true as screens are added (the role sweep of `ReviewTests`
    /// relies on it too).
    @Test func rev01TheReviewTableIsTheGroupsRoutes() async throws {
        let server = try ReviewTests.server()
        let registered = server.application.routeTable.filter {
            ($0.pattern == "/review" || $0.pattern.hasPrefix("/review/")) && !$0.pattern.contains("*")
        }
        for route in registered {
            #expect(
                ReviewRoutes.routes.contains { $0.method == route.method && Self.matches(route.pattern, $0.path) },
                "\(route.method) \(route.pattern) is not in ReviewRoutes.routes")
        }
        for entry in ReviewRoutes.routes {
            #expect(
                registered.contains { $0.method == entry.method && Self.matches($0.pattern, entry.path) },
                "\(entry.method) \(entry.path) is no route of the group")
        }
        #expect(registered.count == ReviewRoutes.routes.count)
        await server.stop()
    }

    /// A route's pattern ("/review/reports/:id") matches an example path ("/review/reports/1").
    static func matches(_ pattern: String, _ path: String) -> Bool {
        let patternSegments = pattern.split(separator: "/")
        let pathSegments = path.split(separator: "/")
        return patternSegments.count == pathSegments.count
            && zip(patternSegments, pathSegments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
    }
}
