import CCurl

/// `curl_global_init` exactly once per process, before any handle exists.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    static func initializeOnce() { _ = initialized }
}

/// One curl easy handle, owned by one transfer thread and reset between transfers (the reset keeps
/// its connection cache, so consecutive calls to the same host reuse the connection).
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer?

    init() {
        CurlGlobal.initializeOnce()
        handle = curl_easy_init()
    }

    deinit { if let handle { curl_easy_cleanup(handle) } }

    /// Runs one transfer to completion on the calling thread (blocking).
    func perform(_ request: TransferRequest, configuration: PlatformConfiguration) -> Result<
        TransferResponse, TransferFailure
    > {
        guard let handle else { return .failure(TransferFailure(kind: .notSent, message: "curl_easy_init failed")) }
        curl_easy_reset(handle)
        let context = TransferContext(request: request, maxResponseBytes: configuration.maxResponseBytes)
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        for header in request.headers { headerList = curl_slist_append(headerList, header) }
        defer { curl_slist_free_all(headerList) }

        var ok = setOptions(handle, configuration: configuration, request: request)
        ok = ok && har_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList) == CURLE_OK
        let userData = Unmanaged.passUnretained(context).toOpaque()
        ok = ok && har_curl_setopt_write_function(handle, curlWriteCallback) == CURLE_OK
        ok = ok && har_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, userData) == CURLE_OK
        ok = ok && har_curl_setopt_header_function(handle, curlHeaderCallback) == CURLE_OK
        ok = ok && har_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, userData) == CURLE_OK
        if let length = context.source?.totalLength {
            ok = ok && har_curl_setopt_long(handle, CURLOPT_POST, 1) == CURLE_OK
            ok = ok && har_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length)) == CURLE_OK
            ok = ok && har_curl_setopt_read_function(handle, curlReadCallback) == CURLE_OK
            ok = ok && har_curl_setopt_pointer(handle, CURLOPT_READDATA, userData) == CURLE_OK
            ok = ok && har_curl_setopt_seek_function(handle, curlSeekCallback) == CURLE_OK
            ok = ok && har_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, userData) == CURLE_OK
        }
        guard ok else { return .failure(TransferFailure(kind: .misconfigured, message: "curl refused an option")) }

        let code = withExtendedLifetime(context) { curl_easy_perform(handle) }
        if code != CURLE_OK { return .failure(failure(code, handle: handle, context: context)) }
        var status = 0
        _ = har_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(TransferResponse(status: status, headers: context.headers, body: context.body))
    }

    private func setOptions(
        _ handle: UnsafeMutableRawPointer, configuration c: PlatformConfiguration,
        request: TransferRequest
    ) -> Bool {
        var codes = [
            har_curl_setopt_string(handle, CURLOPT_URL, request.url),
            har_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),  // signals and threads do not mix
            har_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            har_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            har_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            har_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            // TLS 1.2 at least, whatever the TLS library's own configuration would still allow.
            har_curl_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)),
            har_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(c.connectTimeout * 1000)),
            har_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(c.totalTimeout * 1000)),
            har_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, c.lowSpeedLimit),
            har_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, c.lowSpeedTime),
            // "" = no proxy at all: proxy variables of the environment must not reroute the secret's traffic.
            har_curl_setopt_string(handle, CURLOPT_PROXY, c.proxy ?? ""),
        ]
        if let caInfo = c.caInfo { codes.append(har_curl_setopt_string(handle, CURLOPT_CAINFO, caInfo)) }
        switch request.method {
        case "GET": codes.append(har_curl_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case "POST": break  // set with the body
        default: codes.append(har_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if request.method != "GET" {
            // A call that changes something goes on a connection of its own, closed after it: on a
            // reused keep-alive connection that the server closed without an answer, curl sends the
            // request again by itself on a fresh one, and a platform that processed the first (and
            // ignores Idempotency-Key) would hold it twice (the cluster test showed it).
            codes.append(har_curl_setopt_long(handle, CURLOPT_FRESH_CONNECT, 1))
            codes.append(har_curl_setopt_long(handle, CURLOPT_FORBID_REUSE, 1))
        }
        return codes.allSatisfy { $0 == CURLE_OK }
    }

    private func failure(_ code: CURLcode, handle: UnsafeMutableRawPointer, context: TransferContext) -> TransferFailure
    {
        let text = String(cString: curl_easy_strerror(code))
        if context.responseTooLarge { return TransferFailure(kind: .responseTooLarge, message: "answer too large") }
        if context.bodyUnreadable { return TransferFailure(kind: .bodyUnreadable, message: "photo file unreadable") }
        if code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL {
            return TransferFailure(kind: .misconfigured, message: text)
        }
        // The server can only have acted on a complete request: the transfer must have started and the
        // whole body must have been handed to curl.
        var pretransfer: curl_off_t = 0
        _ = har_curl_getinfo_off(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        let bodyComplete = context.source.map { $0.position >= $0.totalLength } ?? true
        let kind: TransferFailure.Kind = pretransfer > 0 && bodyComplete ? .noAnswerAfterSending : .notSent
        return TransferFailure(kind: kind, message: text)
    }
}
