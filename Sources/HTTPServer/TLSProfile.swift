/// The TLS the server offers when it terminates HTTPS itself: Mozilla's "intermediate" profile
/// (TLS 1.2 and 1.3, AEAD suites with forward secrecy only, in Mozilla's order), as a GnuTLS
/// priority string, since libmicrohttpd is linked to GnuTLS.
public enum TLSProfile {
    /// GnuTLS's own defaults still offer TLS 1.0 and 1.1 and CBC suites (BEAST, LUCKY13), and let the
    /// client pick the suite; `%SERVER_PRECEDENCE` makes the order below the one that counts.
    public static let gnuTLSPriorities =
        "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
        + ":-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD"
        + ":-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:+DHE-RSA:%SERVER_PRECEDENCE"
}
