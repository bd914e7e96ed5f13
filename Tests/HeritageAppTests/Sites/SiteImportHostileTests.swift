import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// SITE-01: hostile and broken files given to `har sites import`: each refused with a clear reason that
/// names the feature (or CSV line), and the register unchanged, on both engines.
@Suite struct SiteImportHostileTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fileName = "hostile.geojson"
        /// The file's text is written in parts (the big ones are made as they are written).
        var parts: @Sendable () -> [String]
        var reason: String
        var testDescription: String { name }
    }

    static let good = [
        GeoJSONText.point("H1", "Kept one", lat: 50.1, lon: -3.1),
        GeoJSONText.point("H2", "Kept two", lat: 50.2, lon: -3.2),
    ]
    static let head = #"{"type": "FeatureCollection", "features": ["# + good.joined(separator: ",") + ","
    static let tail = "]}"

    static func geometry(_ geometry: String) -> [String] {
        [head, GeoJSONText.feature("H3", "Bad", geometry: geometry), tail]
    }

    static let cases: [Case] = [
        Case(
            name: "deep nesting in a feature",
            parts: {
                [
                    head, #"{"type": "Feature", "properties": {"reference": "H3", "name": "x", "deep": "#,
                    String(repeating: "[", count: 100_000), String(repeating: "]", count: 100_000), "}}", tail,
                ]
            }, reason: "feature 3: line 1: nested deeper than 64 levels"),
        Case(
            name: "deep nesting at the top",
            parts: { [String(repeating: "[", count: 1_000_000)] },
            reason: "not a GeoJSON FeatureCollection: line 1: not valid JSON: expected an object"),
        Case(
            name: "a million-vertex outline",
            parts: {
                var parts = [
                    head, #"{"type": "Feature", "properties": {"reference": "H3", "name": "x"}, "geometry": "#,
                ]
                parts.append(#"{"type": "Polygon", "coordinates": [[[0, 50]"#)
                for chunk in 0..<100 {
                    parts.append(
                        (0..<10_000).map { ",[\(Double(chunk * 10_000 + $0) / 1e7), 50.0001]" }.joined())
                }
                parts.append(",[0, 50]]]}}" + tail)
                return parts
            }, reason: "feature 3: too large"),
        Case(
            name: "non-numeric coordinates", parts: { geometry(#"{"type": "Point", "coordinates": ["-3", "50"]}"#) },
            reason: "feature 3: coordinates are not numbers"),
        Case(
            name: "latitude 91", parts: { geometry(#"{"type": "Point", "coordinates": [-3, 91]}"#) },
            reason: "feature 3: latitude 91 is outside -90…90"),
        Case(
            name: "longitude 181", parts: { geometry(#"{"type": "Point", "coordinates": [181, 50]}"#) },
            reason: "feature 3: longitude 181 is outside -180…180"),
        Case(
            name: "a polygon that does not close",
            parts: { geometry(#"{"type": "Polygon", "coordinates": [[[0, 50], [1, 50], [1, 51], [0, 51]]]}"#) },
            reason: "feature 3: a polygon's ring does not close"),
        Case(
            name: "an unknown geometry",
            parts: { geometry(#"{"type": "LineString", "coordinates": [[0, 50], [1, 50]]}"#) },
            reason: "feature 3: geometry type \"LineString\" is not taken"),
        Case(
            name: "no geometry",
            parts: { [head, #"{"type": "Feature", "properties": {"reference": "H3"}, "geometry": null}"#, tail] },
            reason: "feature 3: it has no geometry"),
        Case(
            name: "no name",
            parts: {
                [
                    head,
                    #"{"type": "Feature", "properties": {"reference": "H3", "name": " "}, "geometry": {"type": "Point", "coordinates": [0, 50]}}"#,
                    tail,
                ]
            }, reason: "feature 3: no name"),
        Case(
            name: "no reference",
            parts: {
                [
                    head,
                    #"{"type": "Feature", "properties": {"name": "Anon"}, "geometry": {"type": "Point", "coordinates": [0, 50]}}"#,
                    tail,
                ]
            }, reason: "feature 3: no reference"),
        Case(
            name: "a huge string",
            parts: {
                [
                    head, #"{"type": "Feature", "properties": {"reference": "H3", "name": ""#,
                    String(repeating: "x", count: 3 << 20), #""}}"#, tail,
                ]
            }, reason: "feature 3: line 1: a string longer than 1048576 bytes"),
        Case(
            name: "a truncated file", parts: { [head] }, reason: "feature 3: line 1: not valid JSON: the document ends"),
        Case(
            name: "a CSV row with text for a latitude", fileName: "hostile.csv",
            parts: { ["reference,name,lat,lon\nH1,Kept one,50.1,-3.1\nH2,Kept two,50.2,-3.2\nH3,Bad,north,-3.3\n"] },
            reason: "line 4: coordinates are not numbers"),
    ]

    @Test(arguments: StoreBackend.all) func site01HostileFilesAreRefusedAndChangeNothing(_ backend: StoreBackend)
        async throws
    {
        let scene = try SiteCommandScene(backend)
        let seed = try await scene.har(
            [
                "import",
                try scene.file(
                    "seed.geojson", GeoJSONText.collection([GeoJSONText.point("H1", "Original", lat: 1, lon: 1)])),
            ])
        try #require(seed.status == 0, "\(seed.stderr)")
        let before = try scene.register()
        for hostile in Self.cases {
            let path = scene.folder + "/" + hostile.fileName
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            for part in hostile.parts() { handle.write(Data(part.utf8)) }
            try handle.close()
            let result = try await scene.har(["import", path])
            #expect(result.status == 65, "\(hostile.name): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains(hostile.reason), "\(hostile.name): \(result.stderr)")
            #expect(result.stderr.count < 1000, "\(hostile.name): the message is short")
            #expect(try scene.register() == before, "\(hostile.name): the register is as it was")
        }
    }
}
