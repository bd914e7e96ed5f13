import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The volunteer's choice of site on the submission page (SITE-02), on the real server without
/// JavaScript: the register's sites nearest the photos, "Not in the list" last; a pick fills what was
/// left empty and the report carries the site; a site that does not exist is left out; the sites the
/// device keeps for offline (`/api/sites/near`).
@Suite(.serialized) struct SiteChoiceTests {
    static func site(_ server: RunningServer, _ name: String, _ reference: String, at: (Double, Double)) throws -> Int64
    {
        try server.application.stores.sites.create(
            NewSite(reference: reference, name: name, designation: "SM", grade: "I", latitude: at.0, longitude: at.1),
            now: Date().timeIntervalSince1970
        ).id
    }

    @Test func site02NoScriptChoiceOnSubmit() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let near = try Self.site(server, "Roman Fort", "SM-1", at: (51.0005, 0.0))
        let nearer = try Self.site(server, "Old Well", "SM-2", at: (51.0001, 0.0))
        _ = try Self.site(server, "Distant Abbey", "SM-3", at: (51.5, 0.0))
        let draftID = try await client.openDraft()
        _ = try await client.upload(
            draftID, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0", "accuracy": "5"])
        let page = try await client.get("/reports/new/submit")
        #expect(page.status == 200)
        let body = page.body
        let well = try #require(body.range(of: "id=\"site-option-\(nearer)\""))
        let fort = try #require(body.range(of: "id=\"site-option-\(near)\""))
        let none = try #require(body.range(of: "id=\"site-none\""))
        #expect(well.lowerBound < fort.lowerBound && fort.lowerBound < none.lowerBound, "nearest first, none last")
        #expect(body.contains("Old Well") && body.contains("Scheduled monument") && body.contains("11 m"))
        #expect(!body.contains("Distant Abbey"))
        #expect(body.contains("Not in the list"))
        #expect(body.contains("name=\"name\"") && body.contains("name=\"designation\""), "the fields stay editable")

        // Picked without a name, designation or grade typed: the site's fill them; the report carries it.
        let token = try #require(body.firstMatch(#"name="submit_token" value="([0-9a-f]{64})""#))
        var fields = SubmitTests.good
        fields["name"] = ""
        fields["designation"] = ""
        fields["grade"] = ""
        var arguments = [
            "--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "submit_token=\(token)",
            "--data-urlencode", "draft=\(draftID)", "--data-urlencode", "site_id=\(nearer)",
        ]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            arguments += ["--data-urlencode", "\(name)=\(value)"]
        }
        let answer = try await client.post("/reports/new/submit", arguments, csrf: false)
        #expect(answer.status == 303)
        let row = try queryRows(
            server, "SELECT name, designation, grade, site_id FROM reports WHERE local_id = '\(draftID)'"
        ).first
        #expect(row?[0].string == "Old Well" && row?[1].string == "SM" && row?[2].string == "I")
        #expect(row?[3].int == nearer)
        await server.stop()
    }

    /// SITE-02: what the volunteer typed stays theirs; a site id the register does not have (or garbage)
    /// is left out, never an error; the sites around a point for the device, a bad point refused.
    @Test func site02TypedValuesWinAndUnknownSitesAreLeftOut() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let site = try Self.site(server, "Roman Fort", "SM-1", at: (51.0005, 0.0))
        for (siteField, expected) in [("999999", nil), ("-3", nil), ("abc", nil), ("\(site)", site)]
            as [(String, Int64?)]
        {
            let draftID = try await client.openDraft()
            _ = try await client.upload(
                draftID, file: try TestImages.jpeg(), fields: ["latitude": "51", "longitude": "0", "accuracy": "5"])
            let page = try await client.get("/reports/new/submit")
            let token = try #require(page.body.firstMatch(#"name="submit_token" value="([0-9a-f]{64})""#))
            var arguments = [
                "--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "submit_token=\(token)",
                "--data-urlencode", "draft=\(draftID)", "--data-urlencode", "site_id=\(siteField)",
            ]
            for (name, value) in SubmitTests.good.sorted(by: { $0.key < $1.key }) {
                arguments += ["--data-urlencode", "\(name)=\(value)"]
            }
            let answer = try await client.post("/reports/new/submit", arguments, csrf: false)
            #expect(answer.status == 303, "\(siteField)")
            let row = try queryRows(server, "SELECT name, site_id FROM reports WHERE local_id = '\(draftID)'").first
            #expect(row?[0].string == "St Mary's Church", "typed name kept")
            #expect(row?[1].int == expected, "\(siteField)")
        }
        // The sites kept for offline: around a point, with their labels; a point that is not one is a 400.
        let around = try await client.get("/api/sites/near?lat=51&lon=0")
        #expect(around.status == 200 && around.body.contains("\"name\":\"Roman Fort\""))
        #expect(around.body.contains("\"designationLabel\":\"Scheduled monument\""))
        for bad in ["lat=91&lon=0", "lat=abc&lon=0", "lat=nan&lon=0", "lon=0", "lat=1e999&lon=0"] {
            let refused = try await client.get("/api/sites/near?" + bad)
            #expect(refused.status == 400, "\(bad)")
        }
        await server.stop()
    }
}
