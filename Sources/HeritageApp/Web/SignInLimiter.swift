/// Sign-in limits: a progressive delay per key, never a flat lock, counted in the
/// store so a restart forgets nothing. Three keys per attempt:
/// - the client address: ten free failures (a training room shares one public address; its successful
///   sign-ins never count), then a delay that doubles with each failure up to five minutes;
/// - the e-mail together with the address: five free failures, then the same doubling delay, so one
///   address guessing one account is slowed fast;
/// - the e-mail alone: twenty free failures and a short cap, so guesses spread over many addresses are
///   slowed while the account's owner, from an address of their own, waits at most half a minute.
/// Successful sign-ins are never counted; one clears the e-mail's failures from that address and the
/// e-mail's own count. An attempt inside a delay is refused without being counted, so hammering a
/// victim's e-mail never lengthens the owner's wait.
struct SignInLimiter: Sendable {
    struct Rule: Sendable {
        var prefix: String
        var freeFailures: Int
        var firstDelay: Double
        var maximumDelay: Double
    }

    let store: any SignInLimitStore
    /// Failures older than this (after the last one) are forgotten.
    var window: Double = 900
    var rules = [
        Rule(prefix: "ip:", freeFailures: 10, firstDelay: 15, maximumDelay: 300),
        Rule(prefix: "pair:", freeFailures: 5, firstDelay: 15, maximumDelay: 300),
        Rule(prefix: "email:", freeFailures: 20, firstDelay: 5, maximumDelay: 30),
    ]

    /// The keys of one attempt, in the order of `rules`.
    func keys(address: String, email: String) -> [String] {
        let email = email.lowercased()
        return ["ip:" + address, "pair:" + email + " " + address, "email:" + email]
    }

    /// The delay after `failures` failures under `rule`: none while free, then the first delay, doubled
    /// with each further failure up to the cap (15, 30, 60 … 300 seconds).
    func delay(_ rule: Rule, failures: Int) -> Double {
        let excess = failures - rule.freeFailures
        guard excess >= 0 else { return 0 }
        return min(rule.maximumDelay, rule.firstDelay * Double(1 << min(excess, 20)))
    }

    /// Seconds this attempt must still wait (0: go ahead).
    func wait(keys: [String], now: Double) throws -> Double {
        let found = try store.failures(keys: keys, forgetBefore: now - window)
        var longest = 0.0
        for (key, rule) in zip(keys, rules) {
            guard let failures = found[key] else { continue }
            longest = max(longest, failures.lastAt + delay(rule, failures: failures.count) - now)
        }
        return longest
    }

    func failed(keys: [String], now: Double) throws {
        try store.recordFailure(keys: keys, now: now, forgetBefore: now - window)
    }

    /// A success: the account's failures (from this address and overall) are forgotten; the address's
    /// own count stays (signing in to one's own account must not reset guessing at others).
    func succeeded(keys: [String]) throws {
        try store.clear(keys: Array(keys.dropFirst()))
    }
}
