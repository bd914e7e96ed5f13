import Foundation
import Testing

/// `har platform` as its own process, and the embedded platform that `har serve` starts.
@Suite struct PlatformProcessTests {
    /// The README's block marked `readme-platform-call`, exactly as written there.
    static func readmePlatformCall() throws -> String {
        let readme = try String(contentsOfFile: TestPaths.packageRoot + "/README.md", encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- readme-platform-call"))
        let rest = readme[marker.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    @Test func theReadmesCurlAndOpenSSLCallSignsIn() throws {
        let platform = try RunningPlatform(environment: ["HAR_PLATFORM_APPS": "demo:c2VjcmV0LWRlbW8="])
        let script = try Self.readmePlatformCall()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = ["PLATFORM": platform.baseURL, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let session = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(String(decoding: data, as: UTF8.self))")
        #expect((session["session_id"] as? String)?.isEmpty == false)
        #expect(process.terminationStatus == 0)
    }

    @Test func aBadFaultSpecificationIsNamed() async throws {
        let dataDir = try TestPaths.temporaryDirectory()
        let result = try await runHar(
            ["platform"],
            environment: [
                "HAR_PLATFORM_APPS": "k:s", "HAR_DATA_DIR": dataDir, "HAR_PLATFORM_FAULTS": "fail5xx=lots",
            ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("platform_faults"))
    }

    @Test func serveStartsTheEmbeddedPlatformWithPrivateCredentialsAndStopsIt() async throws {
        let server = try await ServeProcess()
        let keyFile = server.dataDir + "/platform-app.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let children = try childPIDs(of: server.process.processIdentifier)
        #expect(children.count == 1)
        let (status, stderr) = await server.stop()
        #expect(status == 0)
        #expect(!stderr.contains(String(decoding: try Data(contentsOf: URL(fileURLWithPath: keyFile)), as: UTF8.self)))
        for child in children { #expect(kill(child, 0) != 0, "embedded platform \(child) still running") }
    }

    @Test func theEmbeddedPlatformDiesWithAKilledServer() async throws {
        let server = try await ServeProcess()
        let children = try childPIDs(of: server.process.processIdentifier)
        #expect(children.count == 1)
        await server.harProcess.killHard()
        for child in children {
            try await waitUntil("embedded platform \(child) ends with its parent", timeout: 20) { kill(child, 0) != 0 }
        }
    }

    @Test func theSameCredentialsAreKeptAcrossRestarts() async throws {
        let first = try RunningServer(dataDir: try TestPaths.temporaryDirectory())
        let keyFile = first.dataDir + "/platform-app.json"
        let before = try Data(contentsOf: URL(fileURLWithPath: keyFile))
        await first.stop()
        let second = try RunningServer(dataDir: first.dataDir)
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyFile)) == before)
        await second.stop()
    }

    /// Children of a process, from /proc.
    func childPIDs(of parent: Int32) throws -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// A real `har platform` process on a free loopback port.
final class RunningPlatform: @unchecked Sendable {
    let process = Process()
    let dataDir: String
    private(set) var baseURL = ""

    init(environment extra: [String: String]) throws {
        dataDir = try TestPaths.temporaryDirectory()
        process.executableURL = URL(fileURLWithPath: TestPaths.harExecutable)
        process.arguments = ["platform"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAR_") }
        environment["HAR_PLATFORM_PORT"] = "0"
        environment["HAR_DATA_DIR"] = dataDir
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw TestFailure("har platform exited: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"http://[0-9.]+:\d+"#, options: .regularExpression) else {
            throw TestFailure("har platform printed no address: \(text)")
        }
        baseURL = String(text[range])
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dataDir)
    }
}
