import FoundationEssentials

/// `har tls self-signed`: a certificate for a tablet that reaches the server over a LAN, where the
/// camera and geolocation need HTTPS. docs/INSTALL.md (TLS) says how to trust it on a tablet.
enum TLSCommand {
    static let usage = """
        Usage:
          har tls self-signed --host NAME-OR-IP [--host …] [--days N] [--dir DIR] [--config FILE]

        Writes into DIR (default: the data folder's tls/): ca.pem, a small certificate authority for
        these hosts only, to install on each tablet once; cert.pem and key.pem, the server's certificate
        and key, for tls_cert and tls_key (HAR_TLS_CERT, HAR_TLS_KEY). --days: the server certificate's
        life, 365 by default, 825 at most. Running it again makes a new authority: trust the new ca.pem.
        """

    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.first == "self-signed" else {
            print(usage)
            return arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") ? 0 : 64
        }
        var hosts: [SelfSignedCertificate.Host] = []
        var days = 365
        var directory: String?
        var options: [String] = []
        var index = 1
        while index < arguments.count {
            let name = arguments[index]
            if name == "--help" || name == "-h" {
                print(usage)
                return 0
            }
            guard ["--host", "--days", "--dir", "--config"].contains(name), index + 1 < arguments.count else {
                Command.printError("unknown option or missing value: \(name); see har tls --help")
                return 64
            }
            let value = arguments[index + 1]
            index += 2
            switch name {
            case "--host":
                guard let host = SelfSignedCertificate.Host(value) else {
                    Command.printError("--host \(value) is neither a host name nor an IP address")
                    return 64
                }
                if !hosts.contains(host) { hosts.append(host) }
            case "--days":
                guard let number = Int(value) else {
                    Command.printError("--days needs a number")
                    return 64
                }
                days = number
            case "--dir":
                directory = value
            default:
                options += [name, value]
            }
        }
        guard !hosts.isEmpty else {
            Command.printError("at least one --host is needed (the name or address the tablets will use)")
            return 64
        }
        let folder: String
        if let directory {
            folder = directory
        } else {
            do {
                let configuration = try Command.loadConfiguration(options)
                try DataFolder.prepare(configuration.dataDir)
                folder = configuration.dataDir + "/tls"
            } catch {
                Command.printError("\(error)")
                return 78
            }
        }
        do {
            let written = try SelfSignedCertificate.write(hosts: hosts, days: days, directory: folder)
            let names = hosts.map(\.description).joined(separator: ", ")
            print(
                """
                Certificate for \(names), valid \(days) days, signed by a new authority for these hosts only.
                  install on each tablet: \(written.authorityPath)
                    SHA-256 fingerprint:  \(written.authorityFingerprint)
                  server certificate:     \(written.certificatePath)
                  server key (0600):      \(written.keyPath)
                Serve it with:
                  HAR_HOST=0.0.0.0 HAR_TLS_CERT=\(written.certificatePath) HAR_TLS_KEY=\(written.keyPath) har serve
                """)
            return 0
        } catch {
            Command.printError("\(error)")
            return 1
        }
    }
}
