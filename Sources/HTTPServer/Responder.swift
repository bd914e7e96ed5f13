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

    /// Most file parts in a multipart body, and the largest one; nil = the server's configured limits.
    public var maxFiles: Int?
    public var maxFileBytes: Int?
    /// Most text fields in a form body; nil = the server's configured limit (`maxFormFields`).
    public var maxFields: Int?
    /// Looks at a request that has a body when only its head is in (method, path, headers, cookies,
    /// addresses; no body, form or files): an answer returned here goes out at once and not a byte of
    /// the body is read (an upload refused for its session, token or size). Runs on a poll thread:
    /// brief work only (one indexed read).
    public var beforeBody: (@Sendable (Request) -> Response?)?

    public init(
        maxBodyBytes: Int? = nil, spoolRawBody: Bool = false, runsInline: Bool = false, maxFiles: Int? = nil,
        maxFileBytes: Int? = nil, maxFields: Int? = nil, beforeBody: (@Sendable (Request) -> Response?)? = nil
    ) {
        self.maxFields = maxFields
        self.maxBodyBytes = maxBodyBytes
        self.spoolRawBody = spoolRawBody
        self.runsInline = runsInline
        self.maxFiles = maxFiles
        self.maxFileBytes = maxFileBytes
        self.beforeBody = beforeBody
    }
}
