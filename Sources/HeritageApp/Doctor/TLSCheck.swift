import COpenSSL
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The TLS certificate and key that `har serve` hands to libmicrohttpd: readable, one pair, in date.
enum TLSCheck {
    static let subject = "tls"
    /// Days before expiry from which the doctor warns: time to renew before browsers refuse.
    static let warningDays: Int32 = 21

    static func run(_ configuration: Configuration) -> DoctorFinding {
        guard let certificatePath = configuration.tlsCert, let keyPath = configuration.tlsKey else {
            if configuration.tlsCert != nil || configuration.tlsKey != nil {
                return .fail(subject, "only one of tls_cert and tls_key is set", do: "set both, or neither")
            }
            return .ok(subject, "not configured: plain HTTP (fine on loopback or behind a TLS proxy)")
        }
        guard let certificate = readPEM(certificatePath, { PEM_read_X509($0, nil, nil, nil) }) else {
            return .fail(
                subject, "cannot read a PEM certificate from \(certificatePath)",
                do: "check tls_cert and that the server's user can read it")
        }
        defer { X509_free(certificate) }
        guard let key = readPEM(keyPath, { PEM_read_PrivateKey($0, nil, nil, nil) }) else {
            return .fail(
                subject, "cannot read a PEM private key from \(keyPath)",
                do: "check tls_key and that the server's user can read it (unencrypted PEM)")
        }
        defer { EVP_PKEY_free(key) }
        ERR_clear_error()
        guard X509_check_private_key(certificate, key) == 1 else {
            ERR_clear_error()
            return .fail(
                subject, "the certificate \(certificatePath) does not match the key \(keyPath)",
                do: "install the key the certificate was issued for (or har tls self-signed anew)")
        }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard let notAfter = X509_get0_notAfter(certificate), ASN1_TIME_diff(&days, &seconds, nil, notAfter) == 1
        else {
            return .fail(subject, "cannot read the certificate's expiry", do: "check \(certificatePath)")
        }
        if days < 0 || seconds < 0 {
            return .fail(
                subject, "the certificate \(certificatePath) expired \(-days) day(s) ago",
                do: "renew it (har tls self-signed, or your CA) and restart har")
        }
        if days < warningDays {
            return .warn(
                subject, "the certificate expires in \(days) day(s)", do: "renew it before then and restart har")
        }
        return .ok(subject, "certificate and key match; the certificate is valid for \(days) more days")
    }

    /// Reads one PEM object with OpenSSL's reader for its type; nil when the file or its content is not one.
    static func readPEM(_ path: String, _ reader: (UnsafeMutablePointer<FILE>) -> OpaquePointer?) -> OpaquePointer? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        let value = reader(file)
        ERR_clear_error()
        return value
    }
}
