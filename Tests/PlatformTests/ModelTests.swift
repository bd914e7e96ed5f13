import Basics
import Foundation
import Testing

@testable import PlatformClient

@Suite struct ISO8601Tests {
    @Test func parsesOffsetsAndFractions() throws {
        let withOffset = try #require(ISO8601.parse("2026-11-29T15:41:17+01:00"))
        let zulu = try #require(ISO8601.parse("2026-11-29T14:41:17Z"))
        #expect(withOffset == zulu)
        #expect(zulu.timeIntervalSince1970 == 1_795_963_277)
        let fraction = try #require(ISO8601.parse("2026-11-29T14:41:17.123456+00:00"))
        #expect(abs(fraction.timeIntervalSince1970 - 1_795_963_277.123456) < 1e-6)
        #expect(ISO8601.parse("2026-11-29T15:41:17+0100") == withOffset)
        #expect(ISO8601.parse("1969-12-31T23:59:59Z")?.timeIntervalSince1970 == -1)
    }

    @Test func refusesMalformedTimes() {
        for text in [
            "2026-11-29T15:41:17", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-29 x",
            "2026-11-29T15:41:17.Z", "2026-11-29T15:41:17Z trailing", "",
        ] {
            #expect(ISO8601.parse(text) == nil, "\(text)")
        }
    }

    @Test func formatRoundTrips() throws {
        let date = try #require(ISO8601.parse("2024-02-29T23:59:59.5-05:30"))
        #expect(ISO8601.format(date) == "2024-03-01T05:29:59.500000+00:00")
        #expect(ISO8601.parse(ISO8601.format(date)) == date)
        #expect(ISO8601.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000000+00:00")
        #expect(ISO8601.format(Date(timeIntervalSince1970: -1.25)) == "1969-12-31T23:59:58.750000+00:00")
        // Microseconds that round up to a whole second carry into the seconds, minutes, hours and day.
        #expect(ISO8601.format(Date(timeIntervalSince1970: 86_399.999_999_7)) == "1970-01-02T00:00:00.000000+00:00")
        #expect(ISO8601.format(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59.000000+00:00")
        #expect(ISO8601.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000000+00:00")
    }
}

@Suite struct ModelDecodingTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func sessionWithAllFields() throws {
        let session = try decode(
            PlatformSession.self,
            """
            {"account_id":"a1","account_type":"user","app_id":"app","creation_time":"2026-11-29T15:41:17+01:00",
             "expiration_time":"2026-12-29T15:41:17.5+01:00","fullname":null,"is_primary":true,"is_verified":false,
             "locale":"en","picture_id":null,"picture_url":null,"object_status":"active","session_id":"s1",
             "update_time":"2026-11-29T15:41:17Z","extra":{"x":1}}
            """)
        #expect(session.sessionID == "s1")
        #expect(session.expirationTime == ISO8601.parse("2026-12-29T14:41:17.5Z"))
        #expect(session.isPrimary == true)
        #expect(session.fullname == nil)
    }

    @Test func sessionWithoutIDIsRefused() {
        #expect(throws: (any Error).self) { try decode(PlatformSession.self, #"{"account_id":"a"}"#) }
    }

    @Test func reportIsLenientButNeedsIDAndCreationTime() throws {
        let reports = try decode(
            [PlatformReport].self,
            """
            [{"report_id":"r1","creation_time":"2026-11-29T15:41:17+01:00"},
             {"report_id":"r2","creation_time":"2026-11-29T15:41:17Z","name":null,"condition":"poor","grade":7,
              "location":{"latitude":48.853,"longitude":2.349,"accuracy":null},"photos":[{"photo_id":"p1"},{"photo_id":[]}],
              "unknown":true}]
            """)
        #expect(reports.count == 2)
        #expect(reports[1].condition == "poor")
        #expect(reports[1].grade == nil)  // wrong type: dropped, not fatal
        #expect(reports[1].location == Location(latitude: 48.853, longitude: 2.349))
        #expect(reports[1].photos?.count == 2)
        #expect(throws: (any Error).self) {
            try decode(PlatformReport.self, #"{"creation_time":"2026-11-29T15:41:17Z"}"#)
        }
        #expect(throws: (any Error).self) { try decode(PlatformReport.self, #"{"report_id":"r"}"#) }
    }

    @Test func newReportEncodesContractNames() throws {
        let report = NewReport(
            condition: .poor, designation: .listedPlaceOfWorship, grade: .one,
            occupancy: .notApplicable, ownerType: .religiousOrganization,
            placeName: "Nha Tho Duc Ba", priorityCategory: .f)
        let text = String(decoding: try report.jsonBytes(), as: UTF8.self)
        #expect(
            text
                == #"{"condition":"poor","designation":"LPW","grade":"I","occupancy":"not_applicable","owner_type":"religious_organization","place_name":"Nha Tho Duc Ba","priority_category":"F"}"#
        )
        // The same bytes as the shared vector, so the same signature.
        #expect(
            Signature.sign(
                path: "/har/report", body: try report.jsonBytes(),
                secret: "NDk2MGFmMTNjZjYwNDVhODg0ZmZlNGFhYTMzNGJhOTM=")
                == "041ef69bea2d3c4425bf0a27a553e89e330c2e99")
    }

    @Test func formattedCoordinates() {
        #expect(Location(latitude: 48.853, longitude: 2.349).formattedCoordinates == "48.85300° N, 2.34900° E")
        #expect(Location(latitude: -33.8568, longitude: -151.21531).formattedCoordinates == "33.85680° S, 151.21531° W")
    }
}
