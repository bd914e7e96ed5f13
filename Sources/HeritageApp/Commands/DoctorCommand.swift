import Dispatch
import FoundationEssentials
import Imaging
import Mustache
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `har doctor [--config FILE]`: every check, one line each, worst first in the exit code:
/// 0 all OK, 1 a warning, 2 a failure. It reads and never changes (a probe file in the data folder
/// aside), so it may run beside a running `har serve`.
enum DoctorCommand {
    static let usage = """
        Usage:
          har doctor [--config FILE]
              checks the configuration, secrets other users could read, the data folder and its free
              space, the database's schema,
              the platform and its consumer key, TLS, the clock and libvips; one line each, OK, WARN
              or FAIL with what to do. Exit 0: all OK; 1: warnings; 2: failures.
        """

    static func main(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let findings = run(arguments)
        for finding in findings { print(finding.line) }
        return Int32(findings.map(\.level).max()?.rawValue ?? 0)
    }

    static func run(_ arguments: [String]) -> [DoctorFinding] {
        let configuration: Configuration
        do {
            configuration = try Command.loadConfiguration(arguments)
        } catch {
            return [.fail("configuration", "\(error)", do: "fix the key named, in the file or its HAR_ variable")]
        }
        var findings = [configurationFiles(configuration)]
        findings += SecretFilesCheck.run(configurationFile: try? Command.configurationFile(arguments))
        findings += DataFolderCheck.run(configuration)
        findings.append(DatabaseCheck.run(configuration))
        findings += awaiting { await PlatformCheck.run(configuration) }
        findings.append(TLSCheck.run(configuration))
        findings.append(
            Imaging.isAvailable
                ? .ok("libvips", "libvips.so.42 loads (photos are checked and thumbnailed)")
                : .fail(
                    "libvips", "libvips.so.42 cannot be loaded: photos would be refused", do: "apt install libvips42"))
        return findings
    }

    /// The configuration as `har serve` loads it, and the templates it compiles at start.
    static func configurationFiles(_ configuration: Configuration) -> DoctorFinding {
        do {
            _ = try TemplateLibrary(directory: configuration.templatesDir)
            _ = try MessageCatalog(directory: configuration.templatesDir)
        } catch {
            return .fail(
                "configuration", "the templates in \(configuration.templatesDir) do not load: \(error)",
                do: "set templates_dir to the installed Templates folder (/usr/share/har/Templates)")
        }
        var info = stat()
        guard stat(configuration.publicDir, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            return .fail(
                "configuration", "public_dir \(configuration.publicDir) is not a folder",
                do: "set public_dir to the installed Public folder (/usr/share/har/Public)")
        }
        return .ok("configuration", "valid; templates load from \(configuration.templatesDir)")
    }

    /// Runs async work from this synchronous command and waits for it on this thread.
    static func awaiting(_ work: @escaping @Sendable () async -> [DoctorFinding]) -> [DoctorFinding] {
        let result = Mutex<[DoctorFinding]>([])
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}
