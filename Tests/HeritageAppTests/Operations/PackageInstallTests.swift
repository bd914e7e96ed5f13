import Foundation
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// OPS-06: the Debian package that `scripts/package` makes, installed with dpkg into a throwaway root,
/// started as its unit would start it, checked, stopped and removed.
///
/// The package is built once, from the debug `har` of this build (`HAR_PACKAGE_BINARY`): a release build
/// takes minutes, and the package's content is the same but for the binary (whose RUNPATH into the
/// toolchain is the one lintian error this debug package has; the release binary carries the Swift
/// runtime and has none). dpkg installs into the root with `--root` and `--force-script-chrootless`:
/// the maintainer scripts run with `DPKG_ROOT` set, so postinst makes the `har` user in that root's
/// account files, not this machine's. The root's dpkg database is a copy of this machine's, so the
/// Depends: are checked for real. Needs root (dpkg --root, setpriv).
@Suite(.serialized, .enabled(if: getuid() == 0, "installing into a root and switching users needs root"))
struct PackageInstallTests {
    @Test func lintianFindsNoErrorInThePackage() async throws {
        let deb = try await BuiltPackage.shared.value
        let result = try await runProgram("/usr/bin/lintian", ["--allow-root", deb])
        let errors = result.stdout.split(separator: "\n").filter { $0.hasPrefix("E:") }
            .filter { !$0.contains("custom-library-search-path RUNPATH /opt/swift") }
        #expect(errors.isEmpty, "\(result.stdout)\(result.stderr)")
        // One warning, documented in docs/INSTALL.md: the package closes no Debian bug.
        let warnings = result.stdout.split(separator: "\n").filter { $0.hasPrefix("W:") }
            .filter { !$0.contains("initial-upload-closes-no-bugs") }
        #expect(warnings.isEmpty, "\(result.stdout)")
    }

    @Test func packageInstallsStartsAnswersStopsAndIsRemovedKeepingTheData() async throws {
        let deb = try await BuiltPackage.shared.value
        let root = try InstallRoot()
        let install = try await root.dpkg(["-i", deb])
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")

        // What the package put there: the binary, the shared files its configuration names, the unit.
        let configuration = try String(contentsOfFile: root.path + "/etc/har/har.json", encoding: .utf8)
        #expect(configuration.contains(#""templates_dir": "/usr/share/har/Templates""#))
        #expect(configuration.contains(#""data_dir": "/var/lib/har""#))
        for file in ["/usr/bin/har", "/usr/share/har/Templates", "/usr/share/har/Public/css/app.css"] {
            #expect(FileManager.default.fileExists(atPath: root.path + file), "\(file) not installed")
        }
        #expect(FileManager.default.fileExists(atPath: root.path + "/lib/systemd/system/har.service"))
        // postinst: the har system user, in the root's accounts only, owning the data folder.
        let user = try #require(root.user("har"), "postinst made no har user")
        #expect(user.uid < 1000)
        let dataDir = root.path + "/var/lib/har"
        var info = stat()
        #expect(stat(dataDir, &info) == 0 && info.st_uid == user.uid && info.st_mode & 0o777 == 0o700)

        // OPS-07 on the installed layout: the packaged har doctor, as the service's user, finds nothing wrong.
        let doctor = try await runProgram(
            "/usr/bin/setpriv",
            [
                "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", root.path + "/usr/bin/har", "doctor",
                "--config", root.path + "/etc/har/har.json",
            ], environment: harEnvironment(PackagedServer.environment(root)), directory: dataDir)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")

        let server = try await PackagedServer(root: root, user: user)
        let health = try await curl(server.baseURL + "/healthz")
        #expect(health.status == 200)
        #expect(health.body.contains(#""store":"ok""#))
        #expect(server.errors.contains("embedded local platform on http://127.0.0.1:"))
        // A photo is checked and thumbnailed by libvips under the unit's MemoryDenyWriteExecute=, as
        // PackagedServer starts it.
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let upload = try await client.upload(draft, file: try TestImages.jpeg(width: 1600, height: 1200))
        #expect(upload.status == 201 || upload.status == 200, "\(upload.status) \(upload.body)")
        #expect(await server.stop() == 0, "\(server.errors)")
        // UMask=0077: what the server made is its user's alone.
        #expect(stat(dataDir + "/har.sqlite", &info) == 0 && info.st_uid == user.uid && info.st_mode & 0o077 == 0)

        let remove = try await root.dpkg(["-r", "har"])
        #expect(remove.status == 0, "\(remove.stdout)\(remove.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.path + "/usr/bin/har"))
        #expect(FileManager.default.fileExists(atPath: dataDir + "/har.sqlite"), "removal deleted the data")
        #expect(FileManager.default.fileExists(atPath: root.path + "/etc/har/har.json"), "a conffile stays until purge")
    }
}

/// OPS-06: the service's secrets on a fresh install. The configuration and the secrets' file
/// (/etc/har/har.json, /etc/har/har.env) are 0640 root:har: another user reads neither, and the service's
/// user runs `har doctor` without `--config` and finds the configuration, its templates and the
/// consumer secret. The installed root's /etc and /usr are laid over this machine's in a mount
/// namespace of the test's own (overlayfs, `unshare -m`), so the binary reads the real paths.
@Suite(.serialized, .enabled(if: getuid() == 0, "installing into a root and switching users needs root"))
struct PackageSecretsTests {
    @Test func ops06SecretsAreReadOnlyByHarAndHarDoctorFindsThemWithoutConfig() async throws {
        let deb = try await BuiltPackage.shared.value
        let root = try InstallRoot()
        let install = try await root.dpkg(["-i", deb])
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        let user = try #require(root.user("har"), "postinst made no har user")
        for file in ["/etc/har/har.json", "/etc/har/har.env"] {
            var info = stat()
            #expect(stat(root.path + file, &info) == 0, "\(file) not installed")
            #expect(info.st_mode & 0o777 == 0o640 && info.st_uid == 0 && info.st_gid == user.gid, "\(file)")
        }
        // The operator puts the platform's secret where docs/INSTALL.md says (appended: the mode stays).
        let folder = TemporaryDirectory(prefix: "har-secrets")
        let platform = try await PlatformProcess(folder: folder.path)
        defer { Task { await platform.stop() } }
        let secrets = try #require(FileHandle(forWritingAtPath: root.path + "/etc/har/har.env"))
        try secrets.seekToEnd()
        try secrets.write(
            contentsOf: Data(
                """
                HAR_PLATFORM_URL=http://127.0.0.1:\(platform.port)
                HAR_CONSUMER_KEY=\(PlatformProcess.key)
                HAR_CONSUMER_SECRET="\(PlatformProcess.secret)"

                """.utf8))
        try secrets.close()

        let doctor = try await Self.inRoot(root, as: user, ["/usr/bin/har", "doctor"])
        #expect(doctor.stdout.contains("OK   configuration: valid; templates load from /usr/share/har/Templates"))
        #expect(doctor.stdout.contains("OK   platform: reachable; the consumer key"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("OK   secrets: no secret in a file other users can read"))
        #expect(!doctor.stdout.contains(PlatformProcess.secret), "the secret was printed")
        // The outbox's command too reads the packaged configuration: its data folder, /var/lib/har.
        try Stores.sqlite(path: root.path + "/var/lib/har/har.sqlite").close()
        for name in ["har.sqlite", "har.sqlite-wal", "har.sqlite-shm"] {
            chown(root.path + "/var/lib/har/" + name, user.uid, user.gid)
        }
        let outbox = try await Self.inRoot(root, as: user, ["/usr/bin/har", "outbox", "counts"])
        #expect(outbox.status == 0, "\(outbox.stdout)\(outbox.stderr)")
        let nobody = (uid: UInt32(65534), gid: UInt32(65534))
        for file in ["/etc/har/har.json", "/etc/har/har.env"] {
            let read = try await Self.inRoot(root, as: nobody, ["/bin/cat", file])
            #expect(read.status != 0 && !read.stdout.contains("HAR_"), "nobody read \(file)")
        }
    }

    /// Runs `command` as `user` with the installed root's /etc and /usr over this machine's, and its
    /// data folder at /var/lib/har, from there.
    static func inRoot(_ root: InstallRoot, as user: (uid: UInt32, gid: UInt32), _ command: [String]) async throws
        -> ProgramResult
    {
        let script = """
            mount -t overlay overlay -o lowerdir="$1/etc":/etc /etc && \
            mount -t overlay overlay -o lowerdir="$1/usr":/usr /usr && \
            mount -t tmpfs tmpfs /var/lib && mkdir -m 0755 /var/lib/har && \
            mount --bind "$1/var/lib/har" /var/lib/har && cd /var/lib/har && shift && exec "$@"
            """
        return try await runProgram(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c", script, "sh", root.path, "/usr/bin/setpriv", "--reuid=\(user.uid)",
                "--regid=\(user.gid)", "--clear-groups",
            ] + command,
            environment: harEnvironment([:]), directory: root.path)
    }

    /// The postinst of an install on a real system (adduser, not useradd into a root), in a mount
    /// namespace whose /etc is this machine's under an overlay and whose /var/lib is empty: it makes
    /// the user with no warning, and gives the configuration to root:har, 0640.
    @Test func ops06PostinstMakesTheUserWithoutAWarning() async throws {
        let folder = TemporaryDirectory(prefix: "har-postinst")
        for name in ["upper", "work"] {
            try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: true)
        }
        let script = """
            mount -t overlay overlay -o lowerdir=/etc,upperdir="$1/upper",workdir="$1/work" /etc && \
            mount -t tmpfs tmpfs /var/lib && mkdir -p /etc/har && \
            cp config/debian/har.json config/debian/har.env /etc/har/ && chmod 0644 /etc/har/* && \
            DPKG_MAINTSCRIPT_PACKAGE=har DPKG_MAINTSCRIPT_NAME=postinst sh config/debian/postinst configure; \
            stat -c '%a %U:%G %n' /etc/har/har.json /etc/har/har.env /var/lib/har
            """
        let result = try await runProgram(
            "/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, "sh", folder.path], directory: TestPaths.packageRoot)
        #expect(!result.stderr.contains("adduser") && !result.stderr.contains("Warning"), "\(result.stderr)")
        #expect(result.stdout.contains("640 root:har /etc/har/har.json"), "\(result.stdout)")
        #expect(result.stdout.contains("640 root:har /etc/har/har.env"), "\(result.stdout)")
        #expect(result.stdout.contains("700 har:har /var/lib/har"), "\(result.stdout)")
    }
}

/// The package, built once per test run by `scripts/package` from this build's `har`, or from the binary
/// named by `HAR_PACKAGE_BINARY` in the test's environment (the release build, to test what ships).
enum BuiltPackage {
    static let shared = Task { () throws -> String in
        let folder = try TestPaths.temporaryDirectory(prefix: "har-package")
        let binary = ProcessInfo.processInfo.environment["HAR_PACKAGE_BINARY"] ?? TestPaths.harExecutable
        let result = try await runProgram(
            TestPaths.packageRoot + "/scripts/package", [folder],
            environment: harEnvironment(["HAR_PACKAGE_BINARY": binary]),
            directory: TestPaths.packageRoot)
        let deb = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard result.status == 0, deb.hasSuffix(".deb") else {
            throw TestFailure("scripts/package: \(result.status) \(result.stderr)")
        }
        return deb
    }
}

/// A throwaway root for dpkg: a copy of this machine's package database (so that Depends: are checked)
/// and account files (for postinst's useradd), nothing else.
final class InstallRoot {
    let folder = TemporaryDirectory(prefix: "har-root")
    var path: String { folder.path }

    init() throws {
        let manager = FileManager.default
        for directory in ["/var/lib/dpkg/info", "/var/lib/dpkg/updates", "/etc", "/usr/sbin"] {
            try manager.createDirectory(atPath: path + directory, withIntermediateDirectories: true)
        }
        try manager.copyItem(atPath: "/var/lib/dpkg/status", toPath: path + "/var/lib/dpkg/status")
        #expect(manager.createFile(atPath: path + "/var/lib/dpkg/available", contents: nil))
        for file in ["passwd", "group", "shadow", "gshadow"] {
            try manager.copyItem(atPath: "/etc/" + file, toPath: path + "/etc/" + file)
        }
        // The service's user must reach its binary and data folder through the root's folder.
        chmod(path, 0o755)
    }

    func dpkg(_ arguments: [String]) async throws -> ProgramResult {
        try await runProgram(
            "/usr/bin/dpkg", ["--root=\(path)", "--force-script-chrootless", "--log=\(path)/dpkg.log"] + arguments)
    }

    /// A user of the root's /etc/passwd.
    func user(_ name: String) -> (uid: UInt32, gid: UInt32)? {
        let passwd = (try? String(contentsOfFile: path + "/etc/passwd", encoding: .utf8)) ?? ""
        for line in passwd.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            if fields.count > 3, fields[0] == name, let uid = UInt32(fields[2]), let gid = UInt32(fields[3]) {
                return (uid, gid)
            }
        }
        return nil
    }
}

/// The installed `har serve`, started as har.service would start it: its user and group (setpriv),
/// no new privileges, umask 0077, memory that is never both writable and executable (PR_SET_MDWE,
/// the kernel's form of MemoryDenyWriteExecute=), the packaged configuration, the data folder's
/// environment. The shared files' paths are the root's (the configuration names /usr/share/har).
final class PackagedServer: ServerUnderTest, @unchecked Sendable {
    let process = Process()
    let dataDir: String
    let port: Int
    private let errorPath: String

    init(root: InstallRoot, user: (uid: UInt32, gid: UInt32)) async throws {
        dataDir = root.path + "/var/lib/har"
        errorPath = root.path + "/serve.err"
        #expect(FileManager.default.createFile(atPath: errorPath, contents: nil))
        let wrapper = """
            import ctypes, os, sys
            if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0) != 0: sys.exit("PR_SET_MDWE failed")
            os.umask(0o077)
            os.execv(sys.argv[1], sys.argv[1:])
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--no-new-privs",
            "/usr/bin/python3", "-c", wrapper, root.path + "/usr/bin/har", "serve", "--config",
            root.path + "/etc/har/har.json",
        ]
        process.environment = harEnvironment(Self.environment(root))
        process.currentDirectoryURL = URL(fileURLWithPath: dataDir)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        var found: Int?
        let (process, errorPath) = (process, errorPath)
        try await waitUntil("the packaged har serve listens", timeout: 30, interval: 0.05) {
            let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last ?? "")
                return true
            }
            guard process.isRunning else { throw TestFailure("har serve exited: \(text)") }
            return false
        }
        port = try #require(found)
    }

    /// The unit's environment, and the root's shared files in place of /usr/share/har.
    static func environment(_ root: InstallRoot) -> [String: String] {
        [
            "HAR_DATA_DIR": root.path + "/var/lib/har", "HAR_PORT": "0", "HAR_STATIC_WARM": "false",
            "HAR_TEMPLATES_DIR": root.path + "/usr/share/har/Templates",
            "HAR_PUBLIC_DIR": root.path + "/usr/share/har/Public",
        ]
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, as systemctl stop sends; the exit status.
    func stop() async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let process = process
        _ = try? await blocking { process.waitUntilExit() }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
