// Routes a request by method and path pattern to a handler. Patterns: "/report/:id/photo" (":name"
// captures one segment), "/static/*path" (captures the rest of the path, possibly empty).

public typealias AsyncHandler = @Sendable (Request) async throws -> Response
public typealias InlineHandler = @Sendable (Request) throws -> Response

public struct Router: Sendable {
    enum Handler: Sendable {
        case async(AsyncHandler)
        case inline(InlineHandler)
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    /// A class, not a struct: a request keeps its matched route, and copying one (two Strings, the
    /// segments, the options' closure and the handler) took a retain and a release of each, per request.
    final class Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        let options: RouteOptions
        let handler: Handler

        init(method: String, pattern: String, segments: [Segment], options: RouteOptions, handler: Handler) {
            self.method = method
            self.pattern = pattern
            self.segments = segments
            self.options = options
            self.handler = handler
        }
    }

    enum Match {
        case found(Route, parameters: PathParameters)
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private(set) var routes: [Route] = []

    /// Every path made of literal segments only ("/reports", "/"), written as such a route's pattern
    /// is normalised ("/" and the segments joined by single slashes), with every route that matches it
    /// in the order added and the parameters each captures. Built as routes are added, so that a
    /// request for such a path is routed by one lookup instead of a walk over every route (routing was
    /// 15,000 instructions of a 304) with the very result the walk gives: an earlier
    /// ":parameter" or "*rest" route still wins over a later literal one, and 405's Allow still names
    /// every method of every matching route.
    private var literalPaths: [String: [(route: Int, parameters: PathParameters)]] = [:]
    /// The routes with a parameter or rest segment: the only ones a path outside `literalPaths` can match.
    private var patternRoutes: [Int] = []

    /// Every route's method and pattern, in the order added (for sweeps of tests over every route).
    public var routeTable: [(method: String, pattern: String)] { routes.map { ($0.method, $0.pattern) } }

    /// The page for 400, 404, 405, 413, 500, 503 and the like. It must not reveal internals.
    public var errorPage: @Sendable (_ status: Int, _ request: Request) -> Response = Router.defaultErrorPage

    public init() {}

    public mutating func add(
        method: String, pattern: String, options: RouteOptions = .init(), handler: @escaping AsyncHandler
    ) {
        var options = options
        options.runsInline = false
        append(
            Route(
                method: method.uppercased(), pattern: pattern, segments: Router.parse(pattern), options: options,
                handler: .async(handler)))
    }

    public mutating func addInline(
        method: String, pattern: String, options: RouteOptions = .init(), handler: @escaping InlineHandler
    ) {
        var options = options
        options.runsInline = true
        append(
            Route(
                method: method.uppercased(), pattern: pattern, segments: Router.parse(pattern), options: options,
                handler: .inline(handler)))
    }

    private mutating func append(_ route: Route) {
        let index = routes.count
        routes.append(route)
        for key in literalPaths.keys {
            if let parameters = key.withUTF8Bytes({ Router.match(route.segments, $0) }) {
                literalPaths[key, default: []].append((index, parameters))
            }
        }
        var literals: [String] = []
        for segment in route.segments {
            guard case .literal(let text) = segment else {
                patternRoutes.append(index)
                return
            }
            literals.append(text)
        }
        let key = "/" + literals.joined(separator: "/")
        // Only ASCII keys: a request's path is looked up only when it is ASCII (below), so that the
        // dictionary's equality and the walk's comparison of segments can never disagree. A route
        // whose literal is not ASCII may still match an ASCII path (U+212A KELVIN SIGN is canonically
        // "K"), so it is walked like a pattern.
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            patternRoutes.append(index)
            return
        }
        guard literalPaths[key] == nil else { return }
        literalPaths[key] = routes.indices.compactMap { other in
            key.withUTF8Bytes { Router.match(routes[other].segments, $0) }.map { (other, $0) }
        }
    }

    /// Adds a route answered by a `Responder`.
    public mutating func add(method: String, pattern: String, options: RouteOptions = .init(), responder: any Responder)
    {
        add(method: method, pattern: pattern, options: options) { try await responder.respond(to: $0) }
    }

    public mutating func get(_ pattern: String, options: RouteOptions = .init(), _ handler: @escaping AsyncHandler) {
        add(method: "GET", pattern: pattern, options: options, handler: handler)
    }
    public mutating func post(_ pattern: String, options: RouteOptions = .init(), _ handler: @escaping AsyncHandler) {
        add(method: "POST", pattern: pattern, options: options, handler: handler)
    }
    public mutating func put(_ pattern: String, options: RouteOptions = .init(), _ handler: @escaping AsyncHandler) {
        add(method: "PUT", pattern: pattern, options: options, handler: handler)
    }
    public mutating func patch(_ pattern: String, options: RouteOptions = .init(), _ handler: @escaping AsyncHandler) {
        add(method: "PATCH", pattern: pattern, options: options, handler: handler)
    }
    public mutating func delete(_ pattern: String, options: RouteOptions = .init(), _ handler: @escaping AsyncHandler) {
        add(method: "DELETE", pattern: pattern, options: options, handler: handler)
    }

    public mutating func getInline(
        _ pattern: String, options: RouteOptions = .init(), _ handler: @escaping InlineHandler
    ) {
        addInline(method: "GET", pattern: pattern, options: options, handler: handler)
    }
    public mutating func postInline(
        _ pattern: String, options: RouteOptions = .init(), _ handler: @escaping InlineHandler
    ) {
        addInline(method: "POST", pattern: pattern, options: options, handler: handler)
    }

    /// Serves the files under `directory` at `prefix` ("/static" serves "/static/app.css").
    public mutating func serveStatic(prefix: String, directory: String, cacheControl: String = "public, max-age=3600") {
        let files = StaticFiles(directory: directory, cacheControl: cacheControl)
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        getInline(trimmed + "/*path") { request in try files.respond(to: request) }
    }

    static func parse(_ pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
            if part.hasPrefix("*") { return .rest(String(part.dropFirst())) }
            return .literal(String(part))
        }
    }

    /// Matches on the decoded path. HEAD is answered by GET routes (MHD leaves out the body).
    func match(method: String, path: String) -> Match {
        if Router.isNormalisedASCII(path) {
            if let candidates = literalPaths[path] {
                var allowed: [String] = []
                for candidate in candidates {
                    let route = routes[candidate.route]
                    if Router.answers(route, method) { return .found(route, parameters: candidate.parameters) }
                    if !allowed.contains(route.method) { allowed.append(route.method) }
                }
                return Router.notFound(allowed)
            }
            // No literal-only route matches this path: only the others need walking.
            return walk(method, path, patternRoutes)
        }
        return walk(method, path, routes.indices)
    }

    /// The first of `indices`' routes that matches `path` and answers `method`, else 405 naming every
    /// matching route's method, else 404. A route is copied only once it matches.
    private func walk(_ method: String, _ path: String, _ indices: some Sequence<Int>) -> Match {
        path.withUTF8Bytes { bytes in
            var allowed: [String] = []
            for index in indices {
                guard let parameters = Router.match(routes[index].segments, bytes) else { continue }
                let route = routes[index]
                if Router.answers(route, method) { return .found(route, parameters: parameters) }
                if !allowed.contains(route.method) { allowed.append(route.method) }
            }
            return Router.notFound(allowed)
        }
    }

    /// A route answers its own method, and a GET route answers HEAD too.
    private static func answers(_ route: Route, _ method: String) -> Bool {
        route.method == method || (method == "HEAD" && route.method == "GET")
    }

    private static func notFound(_ allowed: [String]) -> Match {
        var allowed = allowed
        if allowed.isEmpty { return .notFound }
        if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
        return .methodNotAllowed(allowed: allowed)
    }

    /// "/" or "/a/b": ASCII, starting with a slash, no empty segment, no trailing slash; written as
    /// the keys of `literalPaths` are.
    private static func isNormalisedASCII(_ path: String) -> Bool {
        path.withUTF8Bytes { bytes in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            var previous: UInt8 = 0
            for byte in bytes {
                if byte >= 0x80 || (byte == UInt8(ascii: "/") && previous == byte) { return false }
                previous = byte
            }
            return bytes.count == 1 || previous != UInt8(ascii: "/")
        }
    }

    /// Walks the path's segments (empty ones skipped, as "//" and a trailing "/" always were) over its
    /// UTF-8 bytes in place: splitting it into an array of Strings for every route cost more than the
    /// rest of routing, and walking it as a Substring cost ~2,600 instructions for a static file
    /// (callgrind). Only a captured value becomes a String.
    private static func match(_ segments: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> PathParameters? {
        let slash = UInt8(ascii: "/")
        var parameters = PathParameters()
        var index = 0
        func segmentEnd() -> Int {
            var end = index
            while end < path.count && path[end] != slash { end += 1 }
            return end
        }
        for segment in segments {
            while index < path.count && path[index] == slash { index += 1 }
            switch segment {
            case .rest(let name):
                parameters[name] = joinedSegments(UnsafeBufferPointer(rebasing: path[index...]))
                return parameters
            case .literal(let text):
                let end = segmentEnd()
                guard index < end, segmentMatches(UnsafeBufferPointer(rebasing: path[index..<end]), text) else {
                    return nil
                }
                index = end
            case .parameter(let name):
                let end = segmentEnd()
                guard index < end else { return nil }
                parameters[name] = String(decoding: UnsafeBufferPointer(rebasing: path[index..<end]), as: UTF8.self)
                index = end
            }
        }
        return path[index...].allSatisfy { $0 == slash } ? parameters : nil
    }

    /// One segment of the path against a route's literal, as Strings compare (canonical equivalence):
    /// equal bytes are equal; different bytes can still be equal characters only past ASCII, where
    /// the Strings decide ("cafe\u{301}" is "caf\u{E9}").
    private static func segmentMatches(_ segment: UnsafeBufferPointer<UInt8>, _ literal: String) -> Bool {
        literal.withUTF8Bytes { expected in
            if segment.elementsEqual(expected) { return true }
            guard segment.contains(where: { $0 >= 0x80 }) || expected.contains(where: { $0 >= 0x80 }) else {
                return false
            }
            return String(decoding: segment, as: UTF8.self) == literal
        }
    }

    /// The non-empty segments of `rest` joined by single slashes ("a//b/" gives "a/b").
    private static func joinedSegments(_ rest: UnsafeBufferPointer<UInt8>) -> String {
        let slash = UInt8(ascii: "/")
        var previousWasSlash = false
        var clean = true
        for byte in rest {
            let isSlash = byte == slash
            if isSlash && previousWasSlash { clean = false }
            previousWasSlash = isSlash
        }
        if clean && !previousWasSlash { return String(decoding: rest, as: UTF8.self) }
        return rest.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
    }

    /// A small page naming the status only: no error text, no stack, no server version.
    @Sendable public static func defaultErrorPage(status: Int, request: Request) -> Response {
        let title = reasonPhrase(status)
        let html =
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(status) \(title)"
            + "</title></head><body><h1>\(status) \(title)</h1></body></html>\n"
        return Response.html(html, status: status)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 416: return "Range Not Satisfiable"
        case 431: return "Request Header Fields Too Large"
        case 501: return "Not Implemented"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Error"
        }
    }
}
