import Foundation
import TestSupport

@testable import HeritageApp

/// A data folder (SQLite) or a database (PostgreSQL) with the application's schema, for `har sites` run
/// as a child process on it; its register read back in-process through `SiteStore`.
final class SiteCommandScene {
    let folder: String
    let environment: [String: String]
    let backend: StoreBackend
    let databaseURL: String?

    init(_ backend: StoreBackend) throws {
        self.backend = backend
        folder = try TestPaths.temporaryDirectory(prefix: "har-sites")
        var environment = [
            "HAR_DATA_DIR": folder + "/data", "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k",
            "HAR_CONSUMER_SECRET": "s", "USER": "operator",
        ]
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        if backend.name == StoreBackend.postgres.name {
            let url = try PostgresCluster.shared().makeDatabase()
            try Stores.postgres(url: url, poolSize: 1).close()
            environment["HAR_DATABASE_URL"] = url
            databaseURL = url
        } else {
            try Stores.sqlite(path: folder + "/data/har.sqlite").close()
            databaseURL = nil
        }
        self.environment = environment
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// `har sites ARGUMENTS` to completion.
    func har(_ arguments: [String]) async throws -> ProgramResult {
        try await runHar(["sites"] + arguments, environment: environment)
    }

    /// The stores on the scene's database, opened for `body` and closed after.
    func withStores<T>(_ body: (Stores) throws -> T) throws -> T {
        let stores =
            try databaseURL.map { try Stores.postgres(url: $0, poolSize: 1) }
            ?? Stores.sqlite(path: folder + "/data/har.sqlite")
        defer { stores.close() }
        return try body(stores)
    }

    /// Every site of the register, by reference then id: what "the register stays as it was" compares.
    func register() throws -> [Site] {
        try withStores { stores in
            try stores.sites.list(near: nil, limit: 10_000, offset: 0).map(\.site).sorted {
                ($0.reference ?? "", $0.id) < ($1.reference ?? "", $1.id)
            }
        }
    }

    /// Writes `text` to a file of the scene named `name`; its path.
    @discardableResult
    func file(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// GeoJSON text for tests: a FeatureCollection of the features given.
enum GeoJSONText {
    static func collection(_ features: [String], crs: String? = nil) -> String {
        let declared = crs.map { #""crs": {"type": "name", "properties": {"name": "\#($0)"}}, "# } ?? ""
        return #"{"type": "FeatureCollection", \#(declared)"features": [\#n"# + features.joined(separator: ",\n")
            + "\n]}"
    }

    static func point(_ reference: String, _ name: String, lat: Double, lon: Double, extra: String = "") -> String {
        #"{"type": "Feature", "properties": {"reference": "\#(reference)", "name": "\#(name)"\#(extra)}, "#
            + #""geometry": {"type": "Point", "coordinates": [\#(lon), \#(lat)]}}"#
    }

    static func feature(_ reference: String, _ name: String, geometry: String) -> String {
        #"{"type": "Feature", "properties": {"reference": "\#(reference)", "name": "\#(name)"}, "geometry": \#(geometry)}"#
    }
}
