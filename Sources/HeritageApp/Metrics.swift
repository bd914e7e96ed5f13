import HTTPServer
import SQLiteStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counters for `GET /metrics` (Prometheus text format). Recorded once per completed request from
/// every server thread, so they are atomics: a Mutex here was taken by every request on every
/// thread and showed up contended in perf. Reading them is rare and need not be one snapshot.
final class Metrics: Sendable {
    private struct Counters {
        var requestsByClass: [Int: Int] = [:]
        var responseBytes = 0
        var durationSum = 0.0
        var clientGone = 0
    }

    private let class1xx = Atomic<Int>(0)
    private let class2xx = Atomic<Int>(0)
    private let class3xx = Atomic<Int>(0)
    private let class4xx = Atomic<Int>(0)
    private let class5xx = Atomic<Int>(0)
    private let clientGone = Atomic<Int>(0)
    private let responseBytes = Atomic<Int>(0)
    private let durationNanoseconds = Atomic<Int>(0)
    /// Requests the HTTP server refused before a handler, by reason; the server counts into it.
    let refusals = RequestRefusals()
    /// The scheduled backups' figures (`BackupSchedule` records them).
    let backups = BackupMetrics()

    func record(_ entry: AccessLogEntry) {
        switch entry.status == 0 ? 0 : entry.status / 100 {
        case 0: clientGone.add(1, ordering: .relaxed)
        case 1: class1xx.add(1, ordering: .relaxed)
        case 2: class2xx.add(1, ordering: .relaxed)
        case 3: class3xx.add(1, ordering: .relaxed)
        case 4: class4xx.add(1, ordering: .relaxed)
        case 5: class5xx.add(1, ordering: .relaxed)
        default: break  // the server sends only 100...599; other classes were never printed
        }
        responseBytes.add(entry.bytes, ordering: .relaxed)
        durationNanoseconds.add(Int((entry.durationSeconds * 1e9).rounded()), ordering: .relaxed)
    }

    private var counters: Counters {
        var counters = Counters()
        counters.requestsByClass = [
            1: class1xx.load(ordering: .relaxed), 2: class2xx.load(ordering: .relaxed),
            3: class3xx.load(ordering: .relaxed), 4: class4xx.load(ordering: .relaxed),
            5: class5xx.load(ordering: .relaxed),
        ]
        counters.clientGone = clientGone.load(ordering: .relaxed)
        counters.responseBytes = responseBytes.load(ordering: .relaxed)
        counters.durationSum = Double(durationNanoseconds.load(ordering: .relaxed)) / 1e9
        return counters
    }

    /// `sqlite`: this process's SQLite statement counts, read before the handler ran any statement of its own.
    func response(
        health: Health, sqlite: (statements: Int, writes: Int, writeTransactions: Int, readerCheckouts: Int),
        extra: String = ""
    )
        -> Response
    {
        let snapshot = counters
        let total = snapshot.requestsByClass.values.reduce(0, +) + snapshot.clientGone
        var text = """
            # HELP har_build_info The running version.
            # TYPE har_build_info gauge
            har_build_info{version="\(Command.version)"} 1
            # HELP har_http_requests_total HTTP requests completed, by status class (client_gone: no answer sent).
            # TYPE har_http_requests_total counter

            """
        for statusClass in 1...5 {
            text +=
                "har_http_requests_total{status=\"\(statusClass)xx\"} \(snapshot.requestsByClass[statusClass] ?? 0)\n"
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
            # HELP har_http_refused_total Requests refused before a handler ran (RFC 9112 framing and the like), by reason.
            # TYPE har_http_refused_total counter

            """
        for (reason, count) in refusals.all {
            text += "har_http_refused_total{reason=\"\(reason.label)\"} \(count)\n"
        }
        text += """
            # HELP har_process_resident_memory_bytes Resident memory of this process.
            # TYPE har_process_resident_memory_bytes gauge
            har_process_resident_memory_bytes \(Self.residentBytes())
            # HELP har_sqlite_statements_total SQL statements this process started on SQLite (read: read-only, BEGIN and COMMIT included).
            # TYPE har_sqlite_statements_total counter
            har_sqlite_statements_total{kind="read"} \(sqlite.statements - sqlite.writes)
            har_sqlite_statements_total{kind="write"} \(sqlite.writes)
            # HELP har_sqlite_write_transactions_total Write transactions this process ran on SQLite.
            # TYPE har_sqlite_write_transactions_total counter
            har_sqlite_write_transactions_total \(sqlite.writeTransactions)
            # HELP har_sqlite_reader_checkouts_total Readers this process took from its SQLite pool: one per read, or per page that reads several stores in one snapshot.
            # TYPE har_sqlite_reader_checkouts_total counter
            har_sqlite_reader_checkouts_total \(sqlite.readerCheckouts)

            """
        text += extra + backups.text
        var response = Response(
            status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(text.utf8))
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// VmRSS from /proc/self/statm (second field, in pages).
    static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0
        var resident = 0
        guard readStatm(file, &size, &resident) else { return 0 }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func readStatm(_ file: UnsafeMutablePointer<FILE>, _ size: inout Int, _ resident: inout Int)
        -> Bool
    {
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
        let fields = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(
            separator: " ")
        guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
        size = first
        resident = second
        return true
    }
}
