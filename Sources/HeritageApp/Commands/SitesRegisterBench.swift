import FoundationEssentials

/// `har sites register --bench N [QUERY]`, for `bench/sites`: the server's time of `/review/sites`'
/// first page with a filter (QUERY, the page's own query string), i.e. the two store calls the page
/// makes (its 51 rows and its count up to 10,001), N times on the running database; prints the median,
/// p95 and p99 in milliseconds (wall, and this process's CPU) and how many sites the filter matched.
enum SitesRegisterBench {
    static func run(_ arguments: [String], store: any SiteReviewStore, now: Double) throws -> Int32 {
        guard arguments.count >= 2, arguments[0] == "--bench", let count = Int(arguments[1]), count >= 1,
            arguments.count <= 3
        else {
            Command.printError("register takes --bench N [QUERY]; see har sites --help")
            return 64
        }
        let text = arguments.count == 3 ? arguments[2] : ""
        // The bench's filters are plain words (no escapes): NAME=VALUE pairs joined by &.
        let pairs = text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
        let query = SiteRegisterQuery(pairs, now: now)
        var times: [Double] = []
        var cpu: [Double] = []
        var matched = 0
        var shown = 0
        for _ in 0..<count {
            let cpuStart = SitesNearest.threadCPUMilliseconds()
            let start = ContinuousClock.now
            shown = try store.register(query.filter, after: nil, limit: SiteRegisterScreen.pageSize + 1).count
            matched = try store.registerCount(query.filter, atMost: SiteRegisterScreen.countLimit + 1)
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            cpu.append(SitesNearest.threadCPUMilliseconds() - cpuStart)
        }
        times.sort()
        cpu.sort()
        func percentile(_ values: [Double], _ share: Double) -> Double {
            SitesNearest.rounded(values[min(values.count - 1, Int(Double(values.count) * share))])
        }
        let counted =
            matched > SiteRegisterScreen.countLimit ? "more than \(SiteRegisterScreen.countLimit)" : "\(matched)"
        print(
            "\(times.count) first pages of the register (\(text.isEmpty ? "no filter" : text)): "
                + "median \(percentile(times, 0.5)) ms, p95 \(percentile(times, 0.95)) ms, "
                + "p99 \(percentile(times, 0.99)) ms; this process's CPU median \(percentile(cpu, 0.5)) ms; "
                + "\(shown) rows, \(counted) matching")
        return 0
    }
}
