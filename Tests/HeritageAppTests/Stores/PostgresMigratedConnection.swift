import PostgresStorage
import TestSupport

@testable import HeritageApp

extension PostgresCluster {
    /// A new database of the shared test cluster with every migration applied (by opening the stores
    /// once): its URL.
    static func migratedDatabase() throws -> String {
        let url = try shared().makeDatabase()
        let stores = try Stores.postgres(url: url, poolSize: 1)
        stores.close()
        return url
    }

    /// `migratedDatabase` and a connection to it, for reading plans and catalogues; nil, with a line
    /// naming `suite`, where PostgreSQL is not installed.
    static func migratedConnection(_ suite: String) throws -> PostgresConnection? {
        guard isInstalled else {
            print("\(suite): \(skipMessage)")
            return nil
        }
        return try PostgresConnection(migratedDatabase())
    }
}
