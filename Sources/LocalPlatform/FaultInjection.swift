import PlatformClient
import Synchronization

/// Faults the local platform injects for tests, reproducible by a seed. Off by default.
/// Text form (`HAR_PLATFORM_FAULTS`): `fail5xx=0.3,fail429=0.1,drop=0.1,latency_ms=200,seed=1`, and
/// `ignore_idempotency=1` for the cluster test.
public struct FaultConfiguration: Sendable, Equatable {
    /// Share of requests answered 500 or 503 before any processing.
    public var fail5xx: Double = 0
    /// Share of requests answered 429 (with Retry-After: 1) before any processing.
    public var fail429: Double = 0
    /// Share of requests processed and then left without an answer (the connection is closed).
    public var drop: Double = 0
    /// Added to every answer.
    public var latencyMilliseconds: Int = 0
    public var seed: UInt64 = 1
    /// Overrides the photo size limit when set (`photo_limit_bytes=…`).
    public var photoLimitBytes: Int?
    /// Ignores Idempotency-Key, as a platform may (the contract does not promise it): a request sent
    /// twice is processed twice, so a test sees any double send of the worker.
    public var ignoreIdempotency = false

    public init() {}

    public var isActive: Bool { fail5xx > 0 || fail429 > 0 || drop > 0 || latencyMilliseconds > 0 }

    /// Parses the text form; unknown keys and bad values are errors naming them.
    public init(parsing text: String) throws(Refusal) {
        for item in text.split(separator: ",") where !item.allSatisfy({ $0 == " " }) {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " } }
            guard parts.count == 2 else { throw .invalidArgument("bad fault setting \"\(item)\"") }
            let (key, value) = (parts[0], parts[1])
            func share() throws(Refusal) -> Double {
                guard let share = Double(value), (0...1).contains(share) else {
                    throw .invalidArgument("fault \(key) must be a share between 0 and 1")
                }
                return share
            }
            func count() throws(Refusal) -> Int {
                guard let number = Int(value), number >= 0 else {
                    throw .invalidArgument("fault \(key) must be a whole number ≥ 0")
                }
                return number
            }
            switch key {
            case "fail5xx": fail5xx = try share()
            case "fail429": fail429 = try share()
            case "drop": drop = try share()
            case "latency_ms": latencyMilliseconds = try count()
            case "seed": seed = UInt64(try count())
            case "photo_limit_bytes": photoLimitBytes = try count()
            case "ignore_idempotency": ignoreIdempotency = try count() != 0
            default: throw .invalidArgument("unknown fault \(key)")
            }
        }
    }
}

/// What to do to one request.
enum FaultDecision: Equatable {
    case none
    case fail(status: Int)
    case dropAfterProcessing
}

/// Draws fault decisions from a seeded SplitMix64 stream, so a seed replays the same sequence of
/// faults (for requests arriving in the same order).
final class FaultInjector: Sendable {
    let configuration: FaultConfiguration
    private let state: Mutex<UInt64>

    init(_ configuration: FaultConfiguration) {
        self.configuration = configuration
        state = Mutex(configuration.seed)
    }

    func decide() -> FaultDecision {
        guard configuration.isActive else { return .none }
        let (a, b) = state.withLock { state in (Self.next(&state), Self.next(&state)) }
        let roll = Double(a >> 11) / Double(1 << 53)
        if roll < configuration.fail5xx { return .fail(status: b % 2 == 0 ? 500 : 503) }
        if roll < configuration.fail5xx + configuration.fail429 { return .fail(status: 429) }
        if roll < configuration.fail5xx + configuration.fail429 + configuration.drop { return .dropAfterProcessing }
        return .none
    }

    /// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough to spread test faults.
    static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
