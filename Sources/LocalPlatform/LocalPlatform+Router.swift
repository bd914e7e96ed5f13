import HTTPServer
import PlatformClient

extension LocalPlatform {
    /// The contract's routes. The photo route keeps the raw body (the signature covers it exactly as
    /// sent) and allows a little more than the photo limit, so that an oversized photo gets the
    /// contract's JSON 413 from the platform rather than the server's page.
    public func makeRouter() -> Router {
        var router = Router()
        let json = RouteOptions(maxBodyBytes: 1 << 20)
        let photo = RouteOptions(maxBodyBytes: configuration.photoLimitBytes + (1 << 20), spoolRawBody: true)
        router.post("/account/session", options: json) { await self.handle($0) }
        router.get("/har/report", options: json) { await self.handle($0) }
        router.post("/har/report", options: json) { await self.handle($0) }
        router.delete("/har/report/:id", options: json) { await self.handle($0) }
        router.post("/har/report/:id/photo", options: photo) { await self.handle($0) }
        // The server's own refusals (unknown path, body over the limit, deadline) in the contract's shape.
        router.errorPage = { status, _ in
            let name =
                switch status {
                case 404: "UndefinedObjectException"
                case 405: "MethodNotAllowedException"
                case 413: "PayloadTooLargeException"
                case 500...: "ServiceUnavailableException"
                default: "InvalidArgumentException"
                }
            return Refusal(status, name, "HTTP \(status)").response
        }
        return router
    }
}
