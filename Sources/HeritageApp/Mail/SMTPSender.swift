import CCurl

/// Hands one message to the SMTP server with libcurl: STARTTLS or implicit TLS, authentication, the
/// message uploaded from memory. Blocking: run it on a thread of its own, never on the concurrency pool.
struct SMTPSender: Sendable {
    private static let curlReady: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    let settings: SMTPSettings

    func send(_ message: MailMessage) -> SMTPOutcome {
        guard Self.curlReady, let handle = curl_easy_init() else {
            return .deferred(code: 0, reply: "curl could not start")
        }
        defer { curl_easy_cleanup(handle) }
        let transfer = SMTPTransfer(message: message.bytes())
        let recipients = curl_slist_append(nil, "<\(message.to.text)>")
        defer { curl_slist_free_all(recipients) }
        guard recipients != nil else { return .deferred(code: 0, reply: "out of memory") }

        let userData = Unmanaged.passUnretained(transfer).toOpaque()
        var codes = options(handle)
        codes += [
            har_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(settings.from.text)>"),
            har_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients),
            har_curl_setopt_long(handle, CURLOPT_UPLOAD, 1),
            har_curl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(transfer.message.count)),
            har_curl_setopt_read_function(handle, smtpReadCallback),
            har_curl_setopt_pointer(handle, CURLOPT_READDATA, userData),
            har_curl_setopt_header_function(handle, smtpReplyCallback),
            har_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, userData),
        ]
        guard codes.allSatisfy({ $0 == CURLE_OK }) else {
            return .rejected(code: 0, reply: "curl refused an SMTP option (is smtp_url smtp:// or smtps://?)")
        }
        let code = withExtendedLifetime(transfer) { curl_easy_perform(handle) }
        var status = 0
        _ = har_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return outcome(code, status: status, transfer: transfer)
    }

    private func options(_ handle: UnsafeMutableRawPointer) -> [CURLcode] {
        // A password goes in clear only to this machine: elsewhere STARTTLS is required, not tried.
        let needsTLS = settings.password != nil && !settings.isLoopback
        let useSSL = settings.isImplicitTLS || needsTLS ? CURLUSESSL_ALL : CURLUSESSL_TRY
        var codes = [
            har_curl_setopt_string(handle, CURLOPT_URL, settings.url),
            har_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"),
            har_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),  // signals and threads do not mix
            har_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(useSSL.rawValue)),
            har_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            har_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            har_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(min(settings.timeoutSeconds, 30) * 1000)),
            har_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(settings.timeoutSeconds * 1000)),
            // "" = no proxy: proxy variables of the environment must not reroute the password.
            har_curl_setopt_string(handle, CURLOPT_PROXY, ""),
        ]
        if let caFile = settings.caFile { codes.append(har_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        if let user = settings.user { codes.append(har_curl_setopt_string(handle, CURLOPT_USERNAME, user)) }
        if let password = settings.password {
            codes.append(har_curl_setopt_string(handle, CURLOPT_PASSWORD, password))
        }
        return codes
    }

    private func outcome(_ code: CURLcode, status: Int, transfer: SMTPTransfer) -> SMTPOutcome {
        let reply = transfer.lastReply
        if code == CURLE_OK { return .sent(reply: reply) }
        let text = String(cString: curl_easy_strerror(code))
        let said = reply.isEmpty ? text : "\(text): \(reply)"
        switch status {
        case 500...599: return .rejected(code: status, reply: said)
        case 400...499: return .deferred(code: status, reply: said)
        default: break
        }
        if code == CURLE_LOGIN_DENIED || code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL {
            return .rejected(code: status, reply: said)
        }
        // 354 is the server's go-ahead for DATA: after it and the whole message, silence is ambiguous.
        if status == 354 && transfer.wholeMessageRead { return .uncertain(reply: said) }
        return .deferred(code: status, reply: said)
    }
}
