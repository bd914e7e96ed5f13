import HTTPServer

/// Routes registered under one path prefix and let in by one admission, the `gate`: the volunteer's
/// screens (`Web`, at "/"), the review (`Review`, at "/review"), the kiosk's tablet (`Kiosks`, at
/// "/kiosk") and the receipts (`Web`, at "/r"). Each gate's verbs (`route`, `routeAsync`, …) are in an
/// extension beside its admission, and wrap a handler in it once, as it is added; a route's path is
/// written after the prefix ("/triage" in the "/review" group is `/review/triage`). The idea is
/// Hummingbird 2's `RouterGroup` (read to learn: a group joins its path to each route's and applies
/// its middleware to each), written for this router: a group adds ordinary routes, so a request is
/// matched and dispatched exactly as before (no per-request work is added).
struct RouteGroup<Gate: Sendable> {
    /// "/review": no trailing slash; "" for the routes at the root.
    let prefix: String
    let gate: Gate
    /// The application's router, lent to the group while it is built (`Router.group`).
    fileprivate(set) var router: Router

    /// The full pattern of `path` in this group: "" is the prefix itself.
    func pattern(_ path: String) -> String {
        if path.isEmpty { return prefix.isEmpty ? "/" : prefix }
        return prefix + path
    }

    /// A route of the group with no admission of the gate's: for what must answer without it (a
    /// service worker's script, fetched without cookies; the enrolment of a tablet with none yet).
    mutating func open(
        _ method: String, _ path: String, options: RouteOptions = .init(), _ handler: @escaping InlineHandler
    ) {
        router.addInline(method: method, pattern: pattern(path), options: Web.declared(options), handler: handler)
    }

    /// Adds a route already wrapped in the gate's admission (for the gates' verbs).
    mutating func addInline(_ method: String, _ path: String, options: RouteOptions, _ handler: @escaping InlineHandler)
    {
        router.addInline(method: method, pattern: pattern(path), options: options, handler: handler)
    }

    mutating func add(_ method: String, _ path: String, options: RouteOptions, _ handler: @escaping AsyncHandler) {
        router.add(method: method, pattern: pattern(path), options: options, handler: handler)
    }
}

extension Router {
    /// The routes `build` adds under `prefix`, each let in by `gate`. The router is lent to the group and
    /// given back (moved, not copied: its tables are never duplicated).
    mutating func group<Gate: Sendable>(
        _ prefix: String, _ gate: Gate, _ build: (inout RouteGroup<Gate>) throws -> Void
    ) rethrows {
        var group = RouteGroup(prefix: prefix, gate: gate, router: self)
        self = Router()
        defer { self = group.router }
        try build(&group)
    }
}
