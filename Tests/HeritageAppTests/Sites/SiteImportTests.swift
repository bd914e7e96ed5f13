import Basics
import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// `har sites import` and `har sites list` as the operator runs them: the real binary on the real
/// database of each engine, the register read back through `SiteStore`.
@Suite struct SiteImportTests {
    static let outline =
        #"{"type": "Polygon", "coordinates": [[[-1.09, 53.96], [-1.08, 53.96], [-1.08, 53.97], [-1.09, 53.97], [-1.09, 53.96]]]}"#
    static let multi =
        #"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [0.001, 0], [0.001, 0.001], [0, 0]]], "#
        + #"[[[2, 50], [2.02, 50], [2.02, 50.02], [2, 50.02], [2, 50]], [[2.005, 50.005], [2.006, 50.005], [2.006, 50.006], [2.005, 50.005]]]]}"#

    /// SITE-01: points and outlines (Polygon, MultiPolygon) from GeoJSON, with codes by name or code;
    /// imported again, nothing is duplicated and what changed is updated; `har sites list` shows them,
    /// nearest first around a point.
    @Test(arguments: StoreBackend.all) func site01GeoJSONPointsOutlinesAndReimport(_ backend: StoreBackend) async throws
    {
        let scene = try SiteCommandScene(backend)
        var features = [
            GeoJSONText.point(
                "1000001", "St Mary's Chapel", lat: 53.959, lon: -1.081,
                extra: #", "designation": "Listed building", "grade": "Grade II*""#),
            GeoJSONText.feature("1000002", "York Castle", geometry: Self.outline),
            GeoJSONText.feature("1000003", "Two parts", geometry: Self.multi),
        ]
        let file = try scene.file(
            "register.geojson", GeoJSONText.collection(features, crs: "urn:ogc:def:crs:OGC:1.3:CRS84"))
        let first = try await scene.har(["import", file])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("3 added, 0 updated, 0 unchanged; 3 sites in the register"), "\(first.stdout)")
        let register = try scene.register()
        #expect(register.map(\.reference) == ["1000001", "1000002", "1000003"])
        #expect(register[0].designation == "LB" && register[0].grade == "II*" && register[0].outline == nil)
        #expect(register[0].latitude == 53.959 && register[0].longitude == -1.081 && register[0].source == .import)
        // An outline's point is its centroid; the outline is kept as GeoJSON.
        #expect(abs(register[1].latitude - 53.965) < 1e-9 && abs(register[1].longitude + 1.085) < 1e-9)
        let kept = try JSONDecoder().decode(JSONValue.self, from: Data((register[1].outline ?? "").utf8))
        let given = try JSONDecoder().decode(JSONValue.self, from: Data(Self.outline.utf8))
        #expect(kept == given)
        // A MultiPolygon's point is the centroid of its largest part.
        #expect(abs(register[2].latitude - 50.01) < 1e-9 && abs(register[2].longitude - 2.01) < 1e-9)
        #expect(register[2].outline?.hasPrefix(#"{"type":"MultiPolygon","coordinates":[[[[0,0],"#) == true)

        features[0] = GeoJSONText.point("1000001", "St Mary's Chapel (ruin)", lat: 53.959, lon: -1.081)
        features.append(GeoJSONText.point("1000004", "Clifford's Tower", lat: 53.956, lon: -1.080))
        try scene.file("register.geojson", GeoJSONText.collection(features))
        let again = try await scene.har(["import", file])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("1 added, 1 updated, 2 unchanged; 4 sites in the register"), "\(again.stdout)")
        let updated = try scene.register()
        #expect(updated.count == 4 && updated[0].id == register[0].id && updated[0].name == "St Mary's Chapel (ruin)")
        #expect(updated[0].designation == nil, "what the file no longer says is cleared")
        #expect(Array(updated[1...2]) == Array(register[1...2]), "unchanged sites are left as they were")

        let list = try await scene.har(["list", "--near", "53.956,-1.080", "--limit", "2"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("id") && lines[0].hasSuffix("distance"), "\(list.stdout)")
        #expect(lines[1].contains("Clifford's Tower") && lines[1].hasSuffix("0 m"), "\(list.stdout)")
        #expect(lines[2].contains("St Mary's Chapel (ruin)"), "\(list.stdout)")
        let byName = try await scene.har(["list"])
        #expect(byName.stdout.split(separator: "\n").count == 5, "\(byName.stdout)")
        #expect(try await scene.har(["list", "--near", "91,0"]).status == 64)
    }

    /// SITE-01: a CSV file with latitude and longitude columns, its own column names mapped with the
    /// field options; quoted fields with commas; imported again, nothing changes.
    @Test(arguments: StoreBackend.all) func site01CSVWithFieldOptions(_ backend: StoreBackend) async throws {
        let scene = try SiteCommandScene(backend)
        let file = try scene.file(
            "list.csv",
            """
            ListEntry,Title,Kind,Grd,Y,X
            2000001,"Barn, north range",SM,,51.2,-2.5\r
            2000002,"The ""Old"" Mill",LB,I,51.3,-2.4

            """)
        let options = [
            "--ref-field", "ListEntry", "--name-field", "Title", "--designation-field", "Kind", "--grade-field", "Grd",
            "--lat-field", "Y", "--lon-field", "X",
        ]
        let imported = try await scene.har(["import", file] + options)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("2 added, 0 updated, 0 unchanged"), "\(imported.stdout)")
        let register = try scene.register()
        #expect(register.map(\.name) == ["Barn, north range", "The \"Old\" Mill"])
        #expect(register.map(\.designation) == ["SM", "LB"] && register.map(\.grade) == [nil, "I"])
        #expect(register.map(\.latitude) == [51.2, 51.3] && register.map(\.longitude) == [-2.5, -2.4])
        let again = try await scene.har(["import", file] + options)
        #expect(again.stdout.contains("0 added, 0 updated, 2 unchanged"), "\(again.stdout)")
        #expect(try scene.register() == register)
        let unmapped = try await scene.har(["import", file])
        #expect(unmapped.status == 65 && unmapped.stderr.contains("line 2: no name"), "\(unmapped.stderr)")
    }

    /// SITE-01: a file in another coordinate reference system (made by ogr2ogr, British National Grid)
    /// is refused with the ogr2ogr command that converts it; converted so, it imports. A shapefile made
    /// from a CSV by ogr2ogr, converted to GeoJSON by ogr2ogr, imports too.
    @Test(arguments: StoreBackend.all) func site01OtherCRSRefusedAndOgr2ogrConversions(_ backend: StoreBackend)
        async throws
    {
        let scene = try SiteCommandScene(backend)
        let source = try scene.file(
            "wgs84.geojson",
            GeoJSONText.collection([
                GeoJSONText.point("3000001", "Whitby Abbey", lat: 54.4885, lon: -0.6077),
                GeoJSONText.feature("3000002", "Castle", geometry: Self.outline),
            ]))
        let grid = scene.folder + "/bng.geojson"
        let made = try await runProgram(
            "/usr/bin/ogr2ogr", ["-f", "GeoJSON", "-s_srs", "EPSG:4326", "-t_srs", "EPSG:27700", grid, source])
        try #require(made.status == 0, "\(made.stderr)")
        let refused = try await scene.har(["import", grid])
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains("EPSG::27700") && refused.stderr.contains("ogr2ogr -t_srs EPSG:4326"),
            "\(refused.stderr)")
        #expect(try scene.register().isEmpty)

        let back = scene.folder + "/back.geojson"
        let converted = try await runProgram("/usr/bin/ogr2ogr", ["-t_srs", "EPSG:4326", "-f", "GeoJSON", back, grid])
        try #require(converted.status == 0, "\(converted.stderr)")
        let imported = try await scene.har(["import", back])
        #expect(imported.status == 0, "\(imported.stderr)")
        let register = try scene.register()
        #expect(register.count == 2 && abs((register.first?.latitude ?? 0) - 54.4885) < 1e-6)

        let csv = try scene.file("points.csv", "ref,name,lat,lon\n4000001,Tintagel,50.668,-4.759\n")
        let shapefile = scene.folder + "/points.shp"
        let shaped = try await runProgram(
            "/usr/bin/ogr2ogr",
            [
                "-f", "ESRI Shapefile", "-a_srs", "EPSG:4326", "-oo", "X_POSSIBLE_NAMES=lon", "-oo",
                "Y_POSSIBLE_NAMES=lat",
                shapefile, csv,
            ])
        try #require(shaped.status == 0, "\(shaped.stderr)")
        let fromShapefile = scene.folder + "/from-shapefile.geojson"
        let toGeoJSON = try await runProgram(
            "/usr/bin/ogr2ogr", ["-f", "GeoJSON", "-t_srs", "EPSG:4326", fromShapefile, shapefile])
        try #require(toGeoJSON.status == 0, "\(toGeoJSON.stderr)")
        let fromShape = try await scene.har(["import", fromShapefile])
        #expect(fromShape.status == 0, "\(fromShape.stderr)")
        #expect(try scene.withStores { try $0.sites.site(reference: "4000001")?.name } == "Tintagel")
    }

    /// SITE-01: a broken feature in the middle of a file refuses the whole file, naming the feature and
    /// why; the sites before it, added or changed, are not kept: the register is as it was.
    @Test(arguments: StoreBackend.all) func site01BrokenFeatureInTheMiddleChangesNothing(_ backend: StoreBackend)
        async throws
    {
        let scene = try SiteCommandScene(backend)
        let good = (1...10).map { GeoJSONText.point("R\($0)", "Site \($0)", lat: 52 + Double($0) / 100, lon: 0.1) }
        let first = try await scene.har(["import", try scene.file("good.geojson", GeoJSONText.collection(good))])
        try #require(first.status == 0, "\(first.stderr)")
        let before = try scene.register()
        var changed = (1...12).map {
            GeoJSONText.point("R\($0)", "Renamed \($0)", lat: 52 + Double($0) / 100, lon: 0.2)
        }
        changed[6] = GeoJSONText.point("R7", "Off the globe", lat: 91, lon: 0.2)
        let refused = try await scene.har(["import", try scene.file("bad.geojson", GeoJSONText.collection(changed))])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("feature 7: latitude 91 is outside -90…90"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing imported"), "\(refused.stderr)")
        #expect(try scene.register() == before)
        #expect(
            try scene.withStores { try $0.sites.nearest(latitude: 52.05, longitude: 0.2, limit: 1, withinMeters: 100) }
                .isEmpty)
    }
}
