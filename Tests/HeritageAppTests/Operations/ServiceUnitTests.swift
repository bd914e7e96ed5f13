import Foundation
import Testing

/// OPS-06: the packaged unit (config/systemd/har.service) as systemd would load it, checked by systemd's
/// own tools in a throwaway root: `verify` finds no error, and `security --offline=true` scores its
/// exposure at 2.0 or under ("OK" starts at 2.0 and below "MEDIUM").
@Suite struct ServiceUnitTests {
    static let unitPath = TestPaths.packageRoot + "/config/systemd/har.service"

    @Test func unitPassesSystemdAnalyzeVerify() async throws {
        let root = try ServiceRoot()
        let result = try await runProgram("/usr/bin/systemd-analyze", ["verify", "--root=\(root.path)", "har.service"])
        #expect(result.status == 0, "\(result.stderr)\(result.stdout)")
        #expect(!result.stderr.contains("har.service"), "\(result.stderr)")
    }

    @Test func unitExposureScoreIsAtMostTwo() async throws {
        let root = try ServiceRoot()
        let result = try await runProgram(
            "/usr/bin/systemd-analyze", ["security", "--offline=true", "--root=\(root.path)", "har.service"])
        let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(score != nil, "no score in: \(result.stdout)\(result.stderr)")
        #expect((score ?? 10) <= 2.0, "\(line)")
    }

    @Test func unitRunsAsItsOwnUserInTheStateFolderAndNotifies() throws {
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let lines = Set(unit.split(separator: "\n").map(String.init))
        for expected in [
            "Type=notify", "User=har", "StateDirectory=har", "Environment=HAR_DATA_DIR=/var/lib/har",
            "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes", "NoNewPrivileges=yes",
            "CapabilityBoundingSet=", "AmbientCapabilities=", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "SystemCallFilter=@system-service", "LockPersonality=yes", "RestrictSUIDSGID=yes", "UMask=0077",
            "MemoryDenyWriteExecute=yes", "ExecStart=/usr/bin/har serve --config /etc/har/har.json",
        ] {
            #expect(lines.contains(expected), "the unit lacks \(expected)")
        }
        #expect(lines.contains { $0.hasPrefix("WatchdogSec=") })
    }
}

/// A root folder with this machine's system units (verify wants sysinit.target and the like), the
/// packaged unit among them, and a stand-in /usr/bin/har (verify checks that ExecStart= is executable).
final class ServiceRoot {
    let folder = TemporaryDirectory(prefix: "har-unit-root")
    var path: String { folder.path }

    init() throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: path + "/lib/systemd", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: path + "/usr/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: path + "/etc/systemd/system", withIntermediateDirectories: true)
        try manager.copyItem(atPath: "/lib/systemd/system", toPath: path + "/lib/systemd/system")
        try? manager.removeItem(atPath: path + "/lib/systemd/system/har.service")
        try manager.copyItem(atPath: ServiceUnitTests.unitPath, toPath: path + "/lib/systemd/system/har.service")
        #expect(
            manager.createFile(
                atPath: path + "/usr/bin/har", contents: Data("#!/bin/sh\n".utf8),
                attributes: [.posixPermissions: 0o755]))
    }
}
