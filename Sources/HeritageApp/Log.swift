import Basics
import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// The process's log: one line per event, access lines on standard output and the rest on standard
/// error. Lines are composed whole and written with one call, so threads never interleave within a line.
/// Nothing secret is ever passed here: callers log paths without queries, never cookies, bodies or keys.
public struct Log: Sendable {
    public init() {}

    /// `2026-11-29T15:41:17.123Z GET /static/css/app.css 200 2041B 0.4ms 127.0.0.1`
    func access(_ entry: AccessLogEntry) {
        let milliseconds = (entry.durationSeconds * 10_000).rounded() / 10
        let line =
            "\(Self.timestamp(entry.time)) \(entry.method) \(Self.redacted(Self.printable(entry.path))) \(entry.status) "
            + "\(entry.bytes)B \(milliseconds)ms \(entry.remoteAddress)\n"
        Self.write(line, to: STDOUT_FILENO)
    }

    public func info(_ message: String) {
        Self.write("\(Self.timestamp(WallClock.now())) info \(message)\n", to: STDERR_FILENO)
    }
    public func warning(_ message: String) {
        Self.write("\(Self.timestamp(WallClock.now())) warning \(message)\n", to: STDERR_FILENO)
    }
    public func error(_ message: String) {
        Self.write("\(Self.timestamp(WallClock.now())) error \(message)\n", to: STDERR_FILENO)
    }

    /// One write(2) per line: unbuffered, so nothing is lost at a crash, and atomic for pipes up to
    /// PIPE_BUF bytes, so lines of different threads never interleave.
    static func write(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Routes whose path ends in a secret (a message's one-click unsubscribe link): logged without it.
    static let secretPathPrefixes = ["/mail/unsubscribe/"]

    static func redacted(_ path: String) -> String {
        for prefix in secretPathPrefixes where path.hasPrefix(prefix) { return prefix + "[redacted]" }
        return path
    }

    /// Control characters in a path would let a client forge log lines: shown escaped instead.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }) else {
            return text
        }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar == " " {
                result += "%" + Hex.encode([UInt8(scalar.value)], uppercase: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// ISO 8601 in UTC with milliseconds.
    static func timestamp(_ seconds: Double) -> String { ISO8601.utc(seconds: seconds, fractionDigits: 3) }
}
