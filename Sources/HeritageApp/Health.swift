import HTTPServer

/// `GET /healthz`: whether the process answers and its store answers, for load balancers and operators.
struct Health: Sendable {
    let store: any InstanceStore

    /// Whether the store answers a read right now.
    var storeIsHealthy: Bool { store.isHealthy() }

    func response() -> Response {
        let healthy = storeIsHealthy
        let body =
            #"{"status":"\#(healthy ? "ok" : "degraded")","version":"\#(Command.version)","store":"\#(healthy ? "ok" : "error")"}"#
        var response = Response.json(Array(body.utf8), status: healthy ? 200 : 503)
        response.headers.add("Cache-Control", "no-store")
        return response
    }
}
