import Foundation
import TestSupport
import Testing

@testable import PostgresStorage

/// A pool whose connections sat idle while PostgreSQL stopped and started again answers the first
/// statement after the return (OPS-04): the pool drops connections the server closed instead of lending
/// one that fails ("server closed the connection unexpectedly").
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresRestartTests {
    @Test func ops04IdleConnectionsClosedByAnImmediateStopAreNotLentAgain() async throws {
        let postgres = try PostgresServer()
        let pool = try PostgresPool(postgres.connectionString, configuration: .init(size: 1))
        defer { pool.close() }
        for _ in 0..<3 {
            _ = try pool.read { try $0.query("SELECT 1") }
            try postgres.stopImmediately()
            try await Task.sleep(for: .milliseconds(300))
            try postgres.start()
            let rows = try pool.read { try $0.query("SELECT 41 + 1") }
            #expect(try rows.first?.int(0) == 42)
        }
    }
}
