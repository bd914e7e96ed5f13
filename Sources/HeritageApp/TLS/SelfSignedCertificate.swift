import COpenSSL
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Certificates for a tablet that reaches `har serve` over a LAN (cameras and geolocation need HTTPS
/// beyond localhost). Two certificates, as local development authorities do it (mkcert's layout taught
/// us the shape; the code is ours): a small certificate authority that the tablets trust once, name
/// constrained to the hosts given so that its key could sign for nothing else, and the server's own
/// certificate signed by it. Keys are ECDSA P-256, written 0600.
struct SelfSignedCertificate {
    /// A host the certificate is for: a DNS name or an IP address, checked strictly, since it is
    /// written into OpenSSL's extension syntax (a comma there would add another name).
    enum Host: Equatable, CustomStringConvertible {
        case dns(String)
        case ipv4(String)
        case ipv6(String)

        init?(_ text: String) {
            if Self.isIPv4(text) {
                self = .ipv4(text)
            } else if Self.isIPv6(text) {
                self = .ipv6(text)
            } else if Self.isDNSName(text) {
                self = .dns(text.lowercased())
            } else {
                return nil
            }
        }

        var description: String {
            switch self {
            case .dns(let name): name
            case .ipv4(let address), .ipv6(let address): address
            }
        }

        /// The subjectAltName entry.
        var alternativeName: String {
            switch self {
            case .dns(let name): "DNS:" + name
            case .ipv4(let address), .ipv6(let address): "IP:" + address
            }
        }

        /// The nameConstraints entry: exactly this name or this one address.
        var permittedSubtree: String {
            switch self {
            case .dns(let name): "permitted;DNS:" + name
            case .ipv4(let address): "permitted;IP:" + address + "/255.255.255.255"
            case .ipv6(let address):
                "permitted;IP:" + address + "/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
            }
        }

        private static func isIPv4(_ text: String) -> Bool {
            var address = in_addr()
            return inet_pton(AF_INET, text, &address) == 1
        }

        private static func isIPv6(_ text: String) -> Bool {
            var address = in6_addr()
            return inet_pton(AF_INET6, text, &address) == 1
        }

        /// RFC 1123 host names: labels of letters, digits and inner hyphens, 63 bytes each, 253 in all;
        /// not all digits (that would be a mistyped address).
        private static func isDNSName(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            guard !bytes.isEmpty, bytes.count <= 253 else { return false }
            let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            for label in labels {
                guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"),
                    label.last != UInt8(ascii: "-")
                else { return false }
                for byte in label {
                    let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                    let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                    guard isLetter || isDigit || byte == UInt8(ascii: "-") else { return false }
                }
            }
            return !bytes.allSatisfy { $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What was written, for the command's output.
    struct Written {
        var authorityPath: String
        var certificatePath: String
        var keyPath: String
        /// SHA-256 of the authority certificate, colon-separated hex, for checking it on a tablet.
        var authorityFingerprint: String
    }

    static let maximumDays = 825  // longest server certificate Apple's platforms accept
    static let authorityDays = 3650

    /// Writes `ca.pem` (to install on the tablets), `cert.pem` (the server certificate followed by
    /// the authority, as a TLS server sends its chain) and `key.pem` into `directory` (made 0700).
    /// The authority's key is not kept: a new host means a new authority, trusted anew.
    static func write(hosts: [Host], days: Int, directory: String) throws -> Written {
        guard let first = hosts.first else { throw Failure(description: "at least one --host is needed") }
        guard (1...maximumDays).contains(days) else {
            throw Failure(description: "--days must be between 1 and \(maximumDays)")
        }
        try makePrivateDirectory(directory)

        let authorityKey = try newKey()
        defer { EVP_PKEY_free(authorityKey) }
        let authority = try newCertificate(
            key: authorityKey, name: "Heritage at Risk local authority for \(first)", issuer: nil, days: authorityDays)
        defer { X509_free(authority) }
        try extend(
            authority, issuer: authority,
            [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
                (NID_name_constraints, "critical," + hosts.map(\.permittedSubtree).joined(separator: ",")),
            ])
        try sign(authority, with: authorityKey)

        let serverKey = try newKey()
        defer { EVP_PKEY_free(serverKey) }
        let server = try newCertificate(key: serverKey, name: first.description, issuer: authority, days: days)
        defer { X509_free(server) }
        try extend(
            server, issuer: authority,
            [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
                (NID_subject_alt_name, hosts.map(\.alternativeName).joined(separator: ",")),
            ])
        try sign(server, with: authorityKey)

        let written = Written(
            authorityPath: directory + "/ca.pem", certificatePath: directory + "/cert.pem",
            keyPath: directory + "/key.pem", authorityFingerprint: try fingerprint(authority))
        try writeFile(written.keyPath, mode: 0o600) { har_pem_write_private_key($0, serverKey) }
        try writeFile(written.certificatePath, mode: 0o644) {
            har_pem_write_certificate($0, server) == 1 ? har_pem_write_certificate($0, authority) : 0
        }
        try writeFile(written.authorityPath, mode: 0o644) { har_pem_write_certificate($0, authority) }
        return written
    }

    private static func newKey() throws -> OpaquePointer {
        guard let key = har_ec_p256_key_new() else { throw openSSLFailure("cannot make a key") }
        return key
    }

    private static func newCertificate(key: OpaquePointer, name: String, issuer: OpaquePointer?, days: Int) throws
        -> OpaquePointer
    {
        guard let certificate = har_x509_new(key, name, issuer, days) else {
            throw openSSLFailure("cannot make a certificate")
        }
        return certificate
    }

    private static func extend(_ certificate: OpaquePointer, issuer: OpaquePointer, _ extensions: [(Int32, String)])
        throws
    {
        for (nid, value) in extensions where har_x509_add_extension(certificate, issuer, nid, value) != 1 {
            throw openSSLFailure("cannot add the extension \(String(cString: OBJ_nid2sn(nid)))")
        }
    }

    private static func sign(_ certificate: OpaquePointer, with key: OpaquePointer) throws {
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw openSSLFailure("cannot sign") }
    }

    private static func fingerprint(_ certificate: OpaquePointer) throws -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else {
            throw openSSLFailure("cannot hash the certificate")
        }
        let hex = "0123456789ABCDEF".utf8.map { Character(UnicodeScalar($0)) }
        return digest.prefix(Int(length)).map { "\(hex[Int($0 >> 4)])\(hex[Int($0 & 15)])" }.joined(separator: ":")
    }

    private static func makePrivateDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(description: "\(path) is not a folder")
        }
    }

    /// Writes through a new file made with `mode` (never wider for a moment) and renamed into place, so
    /// a key is never readable by others and an interrupted run leaves the old files whole.
    private static func writeFile(_ path: String, mode: mode_t, _ body: (UnsafeMutablePointer<FILE>) -> Int32) throws {
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        guard let file = fdopen(descriptor, "w") else {
            close(descriptor)
            throw Failure(description: "cannot write \(path)")
        }
        let wrote = body(file) == 1
        let flushed = fflush(file) == 0 && fsync(descriptor) == 0
        fclose(file)
        guard wrote, flushed, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure(description: "cannot write \(path)")
        }
    }

    /// OpenSSL's own reason for the last failure (no secret is ever in it), then the queue is cleared.
    private static func openSSLFailure(_ what: String) -> Failure {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0, let reason = ERR_reason_error_string(code) else { return Failure(description: what) }
        return Failure(description: what + ": " + String(cString: reason))
    }
}
