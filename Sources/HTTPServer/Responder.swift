/// Anything that answers requests. Handlers may suspend (await the platform, say): the server suspends
/// the MHD connection meanwhile and resumes it with the answer, so no MHD poll thread waits.
public protocol Responder: Sendable {
    func respond(to request: Request) async throws -> Response
}

/// How the server reads a route's body; decided when the headers are in, before the body arrives.
public struct RouteOptions: Sendable {
    /// Largest body accepted; nil = the server's configured limit.
    public var maxBodyBytes: Int?
    /// Keep a copy of the whole body, exactly as received, in a temporary file (`Request.rawBodyPath`),
    /// as well as parsing it. For signature checks over multipart bodies.
    public var spoolRawBody: Bool
    /// Answer on the MHD thread without suspending the connection. Only for handlers that never wait
    /// on the network (static files, pages read from SQLite). They must not actually suspend.
    public var runsInline: Bool

    public init(maxBodyBytes: Int? = nil, spoolRawBody: Bool = false, runsInline: Bool = false) {
        self.maxBodyBytes = maxBodyBytes
        self.spoolRawBody = spoolRawBody
        self.runsInline = runsInline
    }
}
