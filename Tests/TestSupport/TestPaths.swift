// Test support shared by every test target: scratch folders, paths to the package and the built
// `har`, hex, bounded polling, child processes, and one HTTP client on POSIX sockets.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the package and the built `har` are, and scratch files for tests.
public enum TestPaths {
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The `har` executable built beside this test bundle (same build folder, whatever scratch path).
    public static let harExecutable: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let exe = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        var url = URL(fileURLWithPath: exe)
        while url.path != "/" && !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("har").path) {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("har").path
    }()

    /// A new empty folder under /tmp (the caller removes it, or uses `TemporaryDirectory`).
    public static func temporaryDirectory(prefix: String = "har-test") throws -> String {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: errno \(errno)") }
        return String(cString: made)
    }

    public static func temporaryFile(contents: String, name: String = "config.json") throws -> String {
        let path = try temporaryDirectory() + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)) else {
            throw TestFailure("cannot write \(path)")
        }
        return path
    }
}

/// A fresh folder under /tmp, removed (with its files) when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(prefix: String = "har-test") {
        path = (try? TestPaths.temporaryDirectory(prefix: prefix)) ?? "/tmp/\(prefix)-fallback-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes bytes to a file of the folder; returns its path.
    @discardableResult
    public func write(_ bytes: [UInt8], to name: String) -> String {
        let target = file(name)
        _ = FileManager.default.createFile(atPath: target, contents: Data(bytes))
        return target
    }

    public func read(_ name: String) -> [UInt8] {
        (try? Data(contentsOf: URL(fileURLWithPath: file(name)))).map { [UInt8]($0) } ?? []
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}

/// A test's own failure, with what it saw.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Hexadecimal text, as the tests' vectors and the database's `hex()` write it.
public enum Hex {
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of hex text (either case); nil when it is not hex.
    public static func bytes(_ text: String) -> [UInt8]? {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}

/// Waits for a condition, checking every `interval` seconds; throws after `timeout` seconds (generous:
/// this is not a timing assertion, only a bound on a hung test). Used instead of fixed sleeps before
/// "done" or "nothing left" checks.
public func waitUntil(
    _ what: String, timeout: Double = 120, interval: Double = 0.05, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
    }
    throw TestFailure("timed out waiting until \(what)")
}

/// Runs blocking socket, file or subprocess work on a thread of its own. On the cooperative pool (two
/// threads on this machine) it would starve the very handler tasks of an in-process server it waits for.
public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
