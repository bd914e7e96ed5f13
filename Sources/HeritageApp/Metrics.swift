import HTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Counters for `GET /metrics` (Prometheus text format). Recorded once per completed request from the
/// server's threads, so they sit behind a mutex; reading them is rare.
final class Metrics: Sendable {
    private struct Counters {
        var requestsByClass: [Int: Int] = [:]
        var responseBytes = 0
        var durationSum = 0.0
        var clientGone = 0
    }

    private let counters = Mutex(Counters())

    func record(_ entry: AccessLogEntry) {
        counters.withLock { counters in
            if entry.status == 0 {
                counters.clientGone += 1
            } else {
                counters.requestsByClass[entry.status / 100, default: 0] += 1
            }
            counters.responseBytes += entry.bytes
            counters.durationSum += entry.durationSeconds
        }
    }

    func response(health: Health, extra: String = "") -> Response {
        let snapshot = counters.withLock { $0 }
        let total = snapshot.requestsByClass.values.reduce(0, +) + snapshot.clientGone
        var text = """
            # HELP har_build_info The running version.
            # TYPE har_build_info gauge
            har_build_info{version="\(Command.version)"} 1
            # HELP har_http_requests_total HTTP requests completed, by status class (client_gone: no answer sent).
            # TYPE har_http_requests_total counter

            """
        for statusClass in 1...5 {
            text += "har_http_requests_total{status=\"\(statusClass)xx\"} \(snapshot.requestsByClass[statusClass] ?? 0)\n"
        }
        text += """
            har_http_requests_total{status="client_gone"} \(snapshot.clientGone)
            # HELP har_http_response_bytes_total Response body bytes sent.
            # TYPE har_http_response_bytes_total counter
            har_http_response_bytes_total \(snapshot.responseBytes)
            # HELP har_http_request_duration_seconds Time from request line to completion.
            # TYPE har_http_request_duration_seconds summary
            har_http_request_duration_seconds_sum \(snapshot.durationSum)
            har_http_request_duration_seconds_count \(total)
            # HELP har_store_up Whether the SQLite store answers a query.
            # TYPE har_store_up gauge
            har_store_up \(health.storeIsHealthy ? 1 : 0)
            # HELP har_process_resident_memory_bytes Resident memory of this process.
            # TYPE har_process_resident_memory_bytes gauge
            har_process_resident_memory_bytes \(Self.residentBytes())

            """
        text += extra
        var response = Response(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(text.utf8))
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// VmRSS from /proc/self/statm (second field, in pages).
    static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0
        var resident = 0
        guard fscanf_statm(file, &size, &resident) else { return 0 }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func fscanf_statm(_ file: UnsafeMutablePointer<FILE>, _ size: inout Int, _ resident: inout Int) -> Bool {
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
        let fields = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
        guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
        size = first
        resident = second
        return true
    }
}
