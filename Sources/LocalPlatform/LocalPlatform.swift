// LocalPlatform: the server `har platform` runs (and `har serve` embeds by default), a strict
// implementation of the platform contract for running and testing with no network. It speaks the
// client's models and signature, answers through HTTPServer, and keeps its accounts, reports and
// photos in SQLite through Storage (or in memory, for tests).
import FoundationEssentials
import HTTPServer
import PlatformClient
import Synchronization

/// The local platform: a strict implementation of the platform contract, so the product runs and is
/// tested with no network. Whatever it accepts, the real platform must accept; so it checks every
/// header, the signature, every field's type and code, ownership, and honours Idempotency-Key.
/// Request handling is plain functions of `Request` to `Response`, unit-tested without a socket.
public final class LocalPlatform: Sendable {
    public let configuration: LocalPlatformConfiguration
    let store: any LocalPlatformStore
    let faults: FaultInjector
    let now: @Sendable () -> Date
    /// Serialises what must be atomic across store calls: sign-up, idempotent creates and uploads.
    let writeLock = Mutex(())

    public init(
        configuration: LocalPlatformConfiguration, store: any LocalPlatformStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.store = store
        self.faults = FaultInjector(configuration.faults)
        self.now = now
    }

    /// Answers a request as the running platform does: with the configured faults.
    public func handle(_ request: Request) async -> Response {
        if configuration.faults.latencyMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(configuration.faults.latencyMilliseconds))
        }
        switch faults.decide() {
        case .fail(let status):
            var response = Refusal(
                status, status == 429 ? "TooManyRequestsException" : "ServiceUnavailableException",
                "injected fault: try again later"
            ).response
            if status != 500 { response.headers.add("Retry-After", "1") }
            return response
        case .dropAfterProcessing:
            _ = respond(to: request)
            return Response.connectionDropped  // processed, answer lost: the ambiguous case
        case .none:
            return respond(to: request)
        }
    }

    /// Answers a request per the contract, without faults.
    public func respond(to request: Request) -> Response {
        do {
            return try route(request)
        } catch {
            return error.response
        }
    }

    private func route(_ request: Request) throws(Refusal) -> Response {
        let segments = request.path.split(separator: "/").map(String.init)
        let method = request.method.uppercased()
        switch (segments.count, segments.first, segments.dropFirst().first) {
        case (2, "account", "session"):
            guard method == "POST" else { throw .methodNotAllowed }
            return try signIn(request)
        case (2, "har", "report"):
            if method == "GET" { return try listReports(request) }
            if method == "POST" { return try createReport(request) }
            throw .methodNotAllowed
        case (3, "har", "report"):
            guard method == "DELETE" else { throw .methodNotAllowed }
            return try deleteReport(request, id: request.parameters["id"] ?? segments[2])
        case (4, "har", "report") where segments[3] == "photo":
            guard method == "POST" else { throw .methodNotAllowed }
            return try uploadPhoto(request, reportID: request.parameters["id"] ?? segments[2])
        default:
            throw .noSuchEndpoint
        }
    }

    static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    func json(_ value: some Encodable) throws(Refusal) -> Response {
        do {
            return Response.json(try Self.encode(value))
        } catch {
            throw .internalError("cannot encode the answer")
        }
    }

    /// Runs a store call, turning its failure into a 500 (the message names no internals).
    func stored<T>(_ body: () throws -> T) throws(Refusal) -> T {
        do {
            return try body()
        } catch {
            throw .internalError("storage failure")
        }
    }

    /// A new object id: 128 random bits as 32 hex digits, the shape of the platform's ids.
    static func newID() -> String { Crypto.randomHex(bytes: 16) }
}
