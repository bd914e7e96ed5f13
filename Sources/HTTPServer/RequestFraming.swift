// RFC 9112's requirements on a server receiving a request, checked before any handler runs, for what
// libmicrohttpd 0.9.75 lets through (docs/HTTP.md lists every requirement and who enforces it).
// MHD parses the request line and fields and frames the body; it hands us each field as the bytes it
// kept (MHD_get_connection_values_n), which still show most defects: whitespace before the colon, a
// bare CR, a line starting with whitespace, a field folded onto the previous one. The checks walk
// those bytes in place and allocate nothing; the semantic checks (Host, Content-Length,
// Transfer-Encoding) look only at the few fields they concern.
import Synchronization

/// Why a request was refused before it reached a handler. Each has its status and a metrics label.
public enum RequestRefusal: Int, CaseIterable, Sendable {
    /// RFC 9112 §3.2: HTTP/1.1 without Host, more than one Host, an invalid Host value.
    case missingHost, repeatedHost, invalidHost
    /// RFC 9112 §3: whitespace or a control character inside the request-target, a form of target
    /// that is none of origin, absolute or asterisk (for OPTIONS), or octets past ASCII that are not
    /// UTF-8.
    case invalidRequestTarget
    /// RFC 9112 §5.1: whitespace between a field name and its colon.
    case whitespaceBeforeColon
    /// RFC 9112 §2.2: a field line starting with whitespace right after the request line.
    case whitespaceBeforeField
    /// RFC 9110 §5.1: a field name that is not a token.
    case invalidFieldName
    /// RFC 9112 §5.2: obsolete line folding.
    case obsoleteLineFolding
    /// RFC 9112 §2.2: a CR not followed by LF.
    case bareCarriageReturn
    /// RFC 9110 §5.5: a control character (other than HTAB) in a field value.
    case controlCharacterInField
    /// RFC 9112 §6.3: Content-Length not a plain decimal number, or present more than once.
    case invalidContentLength, repeatedContentLength
    /// RFC 9112 §6.3 and §6.1: Content-Length with Transfer-Encoding; Transfer-Encoding in HTTP/1.0;
    /// chunked missing or not last.
    case contentLengthWithTransferEncoding, transferEncodingInHTTP10, chunkedNotFinal
    /// RFC 9112 §6.1: a transfer coding other than chunked (501).
    case unknownTransferCoding
    /// RFC 9110 §9.1: a method this server does not know at all (501).
    case methodNotImplemented
    /// A `Host` name the server does not answer to (`HostAllowlist`, against DNS rebinding).
    case hostNotAllowed
    /// Answered by libmicrohttpd itself before the request reached us, by the status it sent: a
    /// malformed request line or field line, a bad Content-Length or chunk (400), a length past
    /// 2^64 (413), a request line or fields past the connection's memory (414, 431), a major version
    /// other than 1 (505).
    case libraryBadRequest, libraryContentTooLarge, libraryURITooLong, libraryFieldsTooLarge
    case libraryVersionNotSupported, libraryOther

    public var status: Int {
        switch self {
        case .unknownTransferCoding, .methodNotImplemented: return 501
        case .libraryContentTooLarge: return 413
        case .libraryURITooLong: return 414
        case .libraryFieldsTooLarge: return 431
        case .libraryVersionNotSupported: return 505
        case .libraryOther: return 0
        default: return 400
        }
    }

    /// The `reason` label at /metrics.
    public var label: String {
        switch self {
        case .missingHost: return "missing_host"
        case .repeatedHost: return "repeated_host"
        case .invalidHost: return "invalid_host"
        case .invalidRequestTarget: return "invalid_request_target"
        case .whitespaceBeforeColon: return "whitespace_before_colon"
        case .whitespaceBeforeField: return "whitespace_before_field"
        case .invalidFieldName: return "invalid_field_name"
        case .obsoleteLineFolding: return "obsolete_line_folding"
        case .bareCarriageReturn: return "bare_cr"
        case .controlCharacterInField: return "control_character_in_field"
        case .invalidContentLength: return "invalid_content_length"
        case .repeatedContentLength: return "repeated_content_length"
        case .contentLengthWithTransferEncoding: return "content_length_with_transfer_encoding"
        case .transferEncodingInHTTP10: return "transfer_encoding_in_http10"
        case .chunkedNotFinal: return "chunked_not_final"
        case .unknownTransferCoding: return "unknown_transfer_coding"
        case .methodNotImplemented: return "method_not_implemented"
        case .hostNotAllowed: return "host_not_allowed"
        case .libraryBadRequest: return "microhttpd_400"
        case .libraryContentTooLarge: return "microhttpd_413"
        case .libraryURITooLong: return "microhttpd_414"
        case .libraryFieldsTooLarge: return "microhttpd_431"
        case .libraryVersionNotSupported: return "microhttpd_505"
        case .libraryOther: return "microhttpd_other"
        }
    }

    /// The refusal libmicrohttpd reported in its error log line ("... HTTP response code is 431 ...").
    static func fromLibraryMessage(_ message: Substring) -> RequestRefusal? {
        let bytes = Array(message.utf8)
        let marker = Array("response code is ".utf8)
        guard bytes.count >= marker.count + 3,
            let start = (0...(bytes.count - marker.count - 3)).first(where: {
                bytes[$0..<($0 + marker.count)].elementsEqual(marker)
            })
        else { return nil }
        let digits = bytes[(start + marker.count)..<(start + marker.count + 3)]
        switch Int(String(decoding: digits, as: UTF8.self)) {
        case 400: return .libraryBadRequest
        case 413: return .libraryContentTooLarge
        case 414: return .libraryURITooLong
        case 431: return .libraryFieldsTooLarge
        case 505: return .libraryVersionNotSupported
        default: return .libraryOther
        }
    }
}

/// Refusals counted by reason, for /metrics. A lock rather than atomics: it is taken only when a
/// request is refused, never on the way of a good one.
public final class RequestRefusals: Sendable {
    private let counts = Mutex([Int](repeating: 0, count: RequestRefusal.allCases.count))

    public init() {}

    func record(_ refusal: RequestRefusal) { counts.withLock { $0[refusal.rawValue] += 1 } }

    /// Every reason with its count, zeros included, in a fixed order.
    public var all: [(reason: RequestRefusal, count: Int)] {
        let snapshot = counts.withLock { $0 }
        return RequestRefusal.allCases.map { ($0, snapshot[$0.rawValue]) }
    }

    public func count(_ refusal: RequestRefusal) -> Int { counts.withLock { $0[refusal.rawValue] } }
}

enum RequestFraming {
    /// One field line as MHD kept it. `nameStart` and `valueStart` are where MHD's buffer holds them:
    /// for a line as sent the value lies after the name in the read buffer; MHD 0.9.75 rebuilds a
    /// field continued by obs-fold elsewhere in its pool (and, a bug, moves the continuation into the
    /// name), so a value lying before its name is the mark of a fold (docs/HTTP.md, "obs-fold").
    static func checkField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> RequestRefusal? {
        if let nameStart = name.baseAddress, let valueStart = value.baseAddress, valueStart < nameStart {
            return .obsoleteLineFolding
        }
        guard let first = name.first, let last = name.last else { return .invalidFieldName }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { return .whitespaceBeforeField }
        if last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { return .whitespaceBeforeColon }
        for byte in name where !Decoding.isTokenByte(byte) { return .invalidFieldName }
        for byte in value where byte < 0x20 || byte == 0x7F {
            if byte == UInt8(ascii: "\r") { return .bareCarriageReturn }
            if byte != UInt8(ascii: "\t") { return .controlCharacterInField }
        }
        return nil
    }

    /// The request-target as sent: visible ASCII, or octets past it that spell UTF-8 (as their
    /// %-escapes must, `Decoding.path`: repaired into U+FFFD they would name a resource the client
    /// never asked for); nothing that the request line's grammar would have split on. Validated only
    /// when such an octet is there (String(validating:) costs ~600 instructions even for ASCII).
    static func checkTarget(_ raw: [UInt8]) -> RequestRefusal? {
        var pastASCII = false
        for byte in raw {
            if byte <= 0x20 || byte == 0x7F { return .invalidRequestTarget }
            pastASCII = pastASCII || byte >= 0x80
        }
        if pastASCII && String(validating: raw, as: UTF8.self) == nil { return .invalidRequestTarget }
        return nil
    }

    /// The origin-form part of an absolute-form target ("http://host/a?b" gives "/a?b"), which a server
    /// MUST accept (RFC 9112 §3.2.2); nil when the target is not absolute-form.
    static func originForm(ofAbsolute raw: [UInt8]) -> [UInt8]? {
        guard let first = raw.first, first != UInt8(ascii: "/") else { return nil }
        let lowered = raw.prefix(8).map { $0 | 0x20 }
        let schemeLength: Int
        if lowered.starts(with: Array("http://".utf8)) {
            schemeLength = 7
        } else if lowered.starts(with: Array("https://".utf8)) {
            schemeLength = 8
        } else {
            return nil
        }
        let rest = raw[schemeLength...]
        guard let end = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
            return rest.isEmpty ? nil : Array("/".utf8)
        }
        guard end > rest.startIndex else { return nil }  // no authority
        let tail = Array(raw[end...])
        return tail.first == UInt8(ascii: "?") ? Array("/".utf8) + tail : tail
    }

    /// Host, Content-Length and Transfer-Encoding, looked at together (RFC 9112 §3.2, §6.1, §6.3).
    static func checkFields(_ headers: Headers, isHTTP10: Bool) -> RequestRefusal? {
        // In one pass over the received fields' bytes (going through them as Strings made two per field).
        let (hosts, host, lengths, length, codings) = headers.framingFields()
        if hosts > 1 { return .repeatedHost }
        if let host {
            if !isValidHost(host) { return .invalidHost }
        } else if !isHTTP10 {
            return .missingHost
        }
        if lengths > 1 { return .repeatedContentLength }
        if let length, !isValidContentLength(length) { return .invalidContentLength }
        if !codings.isEmpty {
            if isHTTP10 { return .transferEncodingInHTTP10 }
            if lengths > 0 { return .contentLengthWithTransferEncoding }
            return checkTransferCodings(codings)
        }
        return nil
    }

    /// chunked, once and last; any other coding is one we do not implement.
    static func checkTransferCodings(_ values: [String]) -> RequestRefusal? {
        var items: [Substring] = []
        for value in values {
            for item in value.split(separator: ",") {
                var trimmed = item
                while trimmed.first == " " || trimmed.first == "\t" { trimmed = trimmed.dropFirst() }
                while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
                if !trimmed.isEmpty { items.append(trimmed) }
            }
        }
        guard let last = items.last, isChunked(last) else { return .chunkedNotFinal }
        for item in items.dropLast() {
            if isChunked(item) { return .chunkedNotFinal }  // chunked twice
            return .unknownTransferCoding
        }
        return nil
    }

    private static func isChunked(_ coding: Substring) -> Bool {
        coding.utf8.count == 7 && Headers.namesEqual(String(coding), "chunked")
    }

    /// 1*DIGIT, short enough for an Int (MHD itself refuses lists and non-digits, and lengths past 2^64).
    static func isValidContentLength(_ value: String) -> Bool {
        let digits = value.utf8
        return !digits.isEmpty && digits.count <= 18
            && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// uri-host [ ":" port ] (RFC 9110 §7.2): reg-name or IP literal characters; empty is allowed.
    static func isValidHost(_ value: String) -> Bool {
        value.withUTF8Bytes { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    continue
                case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
                    UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                    UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                    UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    continue
                default:
                    return false
                }
            }
            return true
        }
    }

    /// Methods of RFC 9110 §9 and PATCH (RFC 5789): anything else is answered 501 whatever the path.
    static func isKnownMethod(_ method: String) -> Bool {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE": return true
        default: return false
        }
    }
}
