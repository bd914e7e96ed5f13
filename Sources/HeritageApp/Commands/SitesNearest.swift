import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `har sites nearest`: the look-up the pages make, printed; and for `bench/sites`, `--bench N` times N
/// look-ups around points spread over the register (each the server's time of the store call, on the
/// running database), `--scan` the same by a full scan without the index: the baseline.
enum SitesNearest {
    static func run(_ arguments: [String], store: any SiteStore) throws -> Int32 {
        var point: SitePoint?
        var limit = 10
        var within: Double?
        var bench: Int?
        var scan = false
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            index += 2
            switch word {
            case "--limit": limit = Int(value) ?? -1
            case "--within": within = Double(value) ?? -1
            case "--bench": bench = Int(value) ?? -1
            case "--scan":
                scan = true
                index -= 1
            default:
                point = SitesCommand.point(word)
                index -= 1
                if point == nil {
                    Command.printError("not LAT,LON or an option: \(word); see har sites --help")
                    return 64
                }
            }
        }
        guard (1...1000).contains(limit), (within ?? 0) >= 0, (bench ?? 1) >= 1 else {
            Command.printError("--limit is 1 to 1000, --within metres, --bench a count")
            return 64
        }
        if let bench { return try timed(bench, limit: limit, scan: scan, store: store) }
        guard let point else {
            Command.printError("nearest takes LAT,LON; see har sites --help")
            return 64
        }
        let found =
            scan
            ? try store.nearestByScan(latitude: point.latitude, longitude: point.longitude, limit: limit)
            : try store.nearest(
                latitude: point.latitude, longitude: point.longitude, limit: limit, withinMeters: within)
        print(
            SitesCommand.table(
                found.map { SiteListing(site: $0.site, distanceMeters: $0.distanceMeters) }, distances: true),
            terminator: "")
        return 0
    }

    /// Times `count` look-ups around points near sites of the register chosen by a fixed sequence (the
    /// same in every run), each point moved up to about 5 km off its site; prints the median, p95 and
    /// p99 in milliseconds (wall clock, and this process's CPU), and a checksum of the answers so that two runs can be compared.
    static func timed(_ count: Int, limit: Int, scan: Bool, store: any SiteStore) throws -> Int32 {
        let sites = try store.count()
        guard sites > 0 else {
            Command.printError("the register is empty")
            return 1
        }
        var random = SplitMix(seed: 20_261_205)
        var points: [SitePoint] = []
        var attempts = 0
        while points.count < count, attempts < count * 20 {
            attempts += 1
            let id = Int64(random.next() % UInt64(sites)) + 1
            guard let site = try store.site(id: id) else { continue }
            let north = (Double(random.next() % 10_000) / 10_000 - 0.5) * 0.09
            let east = (Double(random.next() % 10_000) / 10_000 - 0.5) * 0.15
            points.append(
                SitePoint(
                    latitude: min(90, max(-90, site.latitude + north)),
                    longitude: min(180, max(-180, site.longitude + east))))
        }
        var times: [Double] = []
        var cpu: [Double] = []
        var checksum: Int64 = 0
        for point in points {
            let cpuStart = threadCPUMilliseconds()
            let start = ContinuousClock.now
            let found =
                scan
                ? try store.nearestByScan(latitude: point.latitude, longitude: point.longitude, limit: limit)
                : try store.nearest(
                    latitude: point.latitude, longitude: point.longitude, limit: limit, withinMeters: nil)
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            cpu.append(threadCPUMilliseconds() - cpuStart)
            checksum = found.reduce(checksum) { $0 &* 31 &+ $1.site.id }
        }
        times.sort()
        cpu.sort()
        func percentile(_ values: [Double], _ share: Double) -> Double {
            values[min(values.count - 1, Int(Double(values.count) * share))]
        }
        print(
            "\(times.count) look-ups of the \(limit) nearest among \(sites) sites\(scan ? " (full scan)" : ""): "
                + "median \(rounded(percentile(times, 0.5))) ms, p95 \(rounded(percentile(times, 0.95))) ms, "
                + "p99 \(rounded(percentile(times, 0.99))) ms, max \(rounded(times.last ?? 0)) ms; "
                + "this process's CPU median \(rounded(percentile(cpu, 0.5))) ms, p95 \(rounded(percentile(cpu, 0.95))) ms; "
                + "checksum \(checksum)")
        return 0
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// The calling thread's CPU time: on a loaded machine the wall clock also counts the time the
    /// thread waited for a core.
    static func threadCPUMilliseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1e6
    }
}

/// A small deterministic generator (SplitMix64): the same points in every run of the bench.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
