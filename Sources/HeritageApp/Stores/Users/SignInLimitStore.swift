/// Failed sign-ins, counted per key ("ip:…", "email:…", "pair:…") in the store, so a restart forgets
/// nothing and several nodes on one database share the counts. Only failures are recorded: a
/// successful sign-in never counts against anyone.
protocol SignInLimitStore: Sendable {
    /// The recorded failures of each key that has any (keys whose last failure is older than
    /// `forgetBefore` read as none).
    func failures(keys: [String], forgetBefore: Double) throws -> [String: SignInFailures]

    /// Adds one failure at `now` to every key (a key whose last failure is older than `forgetBefore`
    /// starts again at one), and removes rows older than `forgetBefore`.
    func recordFailure(keys: [String], now: Double, forgetBefore: Double) throws

    /// Forgets the failures of `keys` (a successful sign-in clears its e-mail's count).
    func clear(keys: [String]) throws
}

/// A key's count of failures and the moment of the last one.
struct SignInFailures: Sendable, Equatable {
    var count: Int
    var lastAt: Double
}
