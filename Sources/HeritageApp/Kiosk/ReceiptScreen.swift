import Basics
import HTTPServer
import Mustache

#if canImport(Glibc)
    import Glibc
#endif

/// `/r/{code}` (KIO-06): a kiosk report's public status for anyone holding the code: received, under
/// review, accepted (and sent), not accepted with the public reason; its location only once approved,
/// never a photo. A signed-in visitor claims it with the secret of the QR link's fragment (read by the
/// page's script, never sent in a URL): the report then shows in their list. Only misses (unknown codes,
/// wrong secrets) are counted, against the client's address (an IPv6 client's /64, which one subscriber
/// holds whole) and against its network (an IPv4 /24, an IPv6 /48); past ten misses of an address, or
/// fifty of a network, in fifteen minutes each further guess from it waits longer (the sign-in limiter's
/// store and doubling delay). There is no budget for the whole site: one that anyone's misses spend would
/// let a few dozen addresses keep every visitor's receipt at 429, and a valid code from another network
/// is served whatever others guess.
enum ReceiptScreen {
    static let guessRules = [
        SignInLimiter.Rule(prefix: "receipt:", freeFailures: 10, firstDelay: 15, maximumDelay: 900),
        // Many addresses of one network (a /24, a /48) guessing together are one client past fifty misses:
        // against 2^40 codes and a wait of up to 15 minutes a miss, each network learns nothing useful.
        SignInLimiter.Rule(prefix: "receipt-net:", freeFailures: 50, firstDelay: 15, maximumDelay: 900),
    ]

    static func register(on group: inout RouteGroup<Web>, kiosks: Kiosks) {
        let web = group.gate
        group.route("GET", "/:code", access: .anyone) { request, context in
            if let wait = try limited(web, request, context) { return wait }
            guard let code = Kiosks.normalizedCode(request.parameters["code"] ?? ""),
                let status = try kiosks.store.receipt(code: code)
            else {
                try failed(web, request)
                return web.errorPage(
                    status: 404, titleKey: "receipt.unknownTitle", messageKey: "receipt.unknown", context: context)
            }
            return try page(web, context, status, notice: request.queryValue("claimed").map { _ in "receipt.claimed" })
        }
        group.route("POST", "/:code/claim", access: .page, options: RouteOptions(maxBodyBytes: 4096)) {
            request, context in
            let user = try context.requireUser()
            if let wait = try limited(web, request, context) { return wait }
            guard let code = Kiosks.normalizedCode(request.parameters["code"] ?? ""),
                let status = try kiosks.store.receipt(code: code)
            else {
                try failed(web, request)
                return web.errorPage(
                    status: 404, titleKey: "receipt.unknownTitle", messageKey: "receipt.unknown", context: context)
            }
            let secretHash = (request.formValue("secret")).flatMap { WebSessions.hash(token: Text.trimmed($0)) }
            let outcome =
                try secretHash.map {
                    try kiosks.store.claim(code: code, secretHash: $0, userID: user.id, now: WallClock.now())
                } ?? .wrongSecret
            switch outcome {
            case .claimed, .alreadyClaimed(mine: true):
                return web.redirect("/r/\(code)?claimed=1", context: context)
            case .wrongSecret, .unknown:
                try failed(web, request)
                return try page(web, context, status, notice: "receipt.wrongSecret", status: 403)
            case .expired:
                return try page(web, context, status, notice: "receipt.expired", status: 410)
            case .alreadyClaimed(mine: false):
                return try page(web, context, status, notice: "receipt.taken", status: 409)
            }
        }
    }

    static func key(_ request: Request) -> [String] {
        ["receipt:ip:" + clientPrefix(request.remoteAddress), "receipt-net:" + networkPrefix(request.remoteAddress)]
    }

    /// The network an address is part of: an IPv4 address's /24 (`203.0.113.0/24`), an IPv6 address's
    /// /48 (`2001:db8:1::/48`, a site's usual allocation). IPv4-mapped IPv6 addresses count as IPv4.
    static func networkPrefix(_ address: String) -> String {
        let client = clientPrefix(address)
        if client.hasSuffix("::/64") {
            return client.split(separator: ":").prefix(3).joined(separator: ":") + "::/48"
        }
        var bytes = [UInt8](repeating: 0, count: 4)
        guard inet_pton(AF_INET, client, &bytes) == 1 else { return client }
        return bytes.prefix(3).map { String($0) }.joined(separator: ".") + ".0/24"
    }

    /// An IPv4 address as it is; an IPv6 address as its /64 (`2001:db8:1:2::/64`): a client handed a
    /// /64 can use a fresh address for every guess. IPv4-mapped IPv6 addresses count as IPv4.
    static func clientPrefix(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map { String($0) }.joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// The 429 page while the client's guesses must wait.
    static func limited(_ web: Web, _ request: Request, _ context: WebContext) throws -> Response? {
        let limiter = SignInLimiter(store: web.stores.signInLimits, rules: guessRules)
        let wait = try limiter.wait(keys: key(request), now: WallClock.now())
        guard wait > 0 else { return nil }
        web.log.security("receipt.limited", ["client": request.remoteAddress])
        var response = web.errorPage(
            status: 429, titleKey: "receipt.limitedTitle", messageKey: "receipt.limited", context: context)
        response.headers.add("Retry-After", String(Int(wait.rounded(.up))))
        return response
    }

    static func failed(_ web: Web, _ request: Request) throws {
        let limiter = SignInLimiter(store: web.stores.signInLimits, rules: guessRules)
        try limiter.failed(keys: key(request), now: WallClock.now())
    }

    /// The public words of a receipt's state.
    static func statusKey(_ status: ReceiptStatus) -> String {
        switch status.review {
        case ReviewState.approved.rawValue: status.delivery == ReportState.stored.rawValue ? "sent" : "accepted"
        case ReviewState.rejected.rawValue, ReviewState.duplicate.rawValue: "notAccepted"
        case ReviewState.needsInfo.rawValue: "underReview"
        default: "received"
        }
    }

    /// Five decimals (about a metre).
    static func degrees(_ value: Double?) -> String {
        String(((value ?? 0) * 100_000).rounded() / 100_000)
    }

    static func page(_ web: Web, _ context: WebContext, _ receipt: ReceiptStatus, notice: String?, status: Int = 200)
        throws -> Response
    {
        let messages = context.messages
        let approved = receipt.review == ReviewState.approved.rawValue
        let reason: String? =
            receipt.review == ReviewState.duplicate.rawValue
            ? messages["review.reasons.duplicate"] : receipt.reason.map { messages["review.reasons.\($0)"] }
        let values: [String: MustacheValue] = [
            "code": .string(receipt.code), "site": .string(receipt.siteName),
            "name": .string(receipt.name ?? ""), "submitted": .string(ReviewPresentation.time(receipt.submittedAt)),
            "state": .string(messages["receipt.state.\(statusKey(receipt))"]),
            "reason": MustacheValue(statusKey(receipt) == "notAccepted" ? reason : nil),
            "location": approved && receipt.latitude != nil
                ? .string(degrees(receipt.latitude) + ", " + degrees(receipt.longitude)) : .null,
            "notice": MustacheValue(notice.map { messages[$0] }),
            "claimable": .bool(receipt.claimedBy == nil),
            "signInPath": .string("/signin"),
        ]
        return try web.render(
            "receipt", title: messages.format("receipt.title", ["code": receipt.code]), values, context: context,
            status: status, modules: ["receipt"])
    }
}

/// The reports a user claimed from kiosks, on their list (KIO-06).
enum ClaimedReceipts {
    static func value(_ web: Web, _ context: WebContext) -> MustacheValue {
        guard let user = context.user, let claimed = try? web.stores.kiosks.claimed(userID: user.id), !claimed.isEmpty
        else { return .null }
        return [
            "items": .array(
                claimed.map { receipt in
                    [
                        "code": .string(receipt.code), "name": .string(receipt.name ?? receipt.siteName),
                        "state": .string(context.messages["receipt.state.\(ReceiptScreen.statusKey(receipt))"]),
                    ]
                })
        ]
    }
}
