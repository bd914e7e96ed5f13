import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What the platform said to a signed request that changes nothing, for `har doctor`: whether the
/// consumer key and secret were accepted, and the platform's clock.
public struct PlatformProbe: Sendable, Equatable {
    public enum Credentials: Sendable, Equatable {
        /// Key and signature passed; only the (deliberately unknown) session was refused.
        case accepted
        /// The platform refused the key or the signature (its error name and message).
        case refused(error: String, message: String)
        /// An answer that says neither (a proxy's page, another API): the status and error name.
        case unclear(status: Int, error: String)
    }

    public let credentials: Credentials
    /// The platform's `Date` header in seconds since 1970, when it sent one.
    public let date: Double?
}

extension PlatformClient {
    /// `GET har/report`, signed, with a session id no platform issues: the contract checks the key and
    /// the signature before the session, so `ExpiredSessionException` means the credentials passed,
    /// and nothing is created or read.
    public func probe() async throws -> PlatformProbe {
        let path = "har/report"
        let headers = [
            "Accept: application/json", "X-API-Key: \(configuration.consumerKey)",
            "X-API-Sig: \(Signature.sign(path: path, body: [], secret: configuration.consumerSecret))",
            "X-Authentication: har-doctor-probe",
        ]
        let request = TransferRequest(method: "GET", url: configuration.url(for: path), headers: headers, body: .none)
        let configuration = configuration
        let result = try await onTransferThread { easy in easy.perform(request, configuration: configuration) }
        switch result {
        case .failure(let failure):
            throw PlatformError.from(failure)
        case .success(let response):
            let date = response.headers.first { $0.name.lowercased() == "date" }.flatMap { Self.httpDate($0.value) }
            return PlatformProbe(credentials: Self.credentials(of: response), date: date)
        }
    }

    static func credentials(of response: TransferResponse) -> PlatformProbe.Credentials {
        struct ErrorBody: Decodable {
            var error: String?
            var message: String?
        }
        let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
        let name = body?.error ?? ""
        switch (response.status, name) {
        case (401, "ExpiredSessionException"), (200, _): return .accepted
        case (401, _), (403, _): return .refused(error: name, message: body?.message ?? "")
        default: return .unclear(status: response.status, error: name)
        }
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 5.6.7) in seconds since 1970.
    static func httpDate(_ text: String) -> Double? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(clock[0])
        fields.tm_min = Int32(clock[1])
        fields.tm_sec = Int32(clock[2])
        return Double(timegm(&fields))
    }
}
