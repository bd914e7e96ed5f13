import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `har sites`: the register of heritage sites from the command line (docs/SITES.md): `import` a
/// GeoJSON or CSV file (all of it, or nothing), `list` the register (around a point), and `nearest`,
/// the look-up the pages make, timed for `bench/sites`.
enum SitesCommand {
    static let usage = """
        Usage:
          har sites [--config FILE] import FILE [--ref-field NAME] [--name-field NAME]
                                  [--designation-field NAME] [--grade-field NAME]
                                  [--lat-field NAME] [--lon-field NAME] [--format geojson|csv]
                     adds the sites of a GeoJSON FeatureCollection (WGS 84) or a CSV file with latitude
                     and longitude columns, and updates those whose reference is known already; a bad
                     feature refuses the whole file (convert other systems with ogr2ogr -t_srs EPSG:4326)
          har sites [--config FILE] list [--near LAT,LON] [--limit N] [--offset N]
                     the register by name, or nearest first around a point
          har sites [--config FILE] nearest LAT,LON [--limit N] [--within METRES]
                     the sites nearest a point, with their distance
          har sites [--config FILE] register --bench N [QUERY]
                     times N first pages of /review/sites with the filter QUERY (its query string, e.g.
                     condition=bad&q=mill): the page's rows and its count, as the page reads them
        """

    static func main(_ arguments: [String]) -> Int32 {
        Command.runOnStores(arguments, usage: usage) { action, stores, _ in
            if action.first == "register" {
                return try SitesRegisterBench.run(
                    Array(action.dropFirst()), store: stores.siteReview, now: Date().timeIntervalSince1970)
            }
            return try run(action, store: stores.sites, now: Date().timeIntervalSince1970)
        }
    }

    static func run(_ action: [String], store: any SiteStore, now: Double) throws -> Int32 {
        let rest = Array(action.dropFirst())
        switch action.first {
        case "import": return try importFile(rest, store: store, now: now)
        case "list": return try list(rest, store: store)
        case "nearest": return try SitesNearest.run(rest, store: store)
        default:
            print(usage)
            return 64
        }
    }

    static func importFile(_ arguments: [String], store: any SiteStore, now: Double) throws -> Int32 {
        let parsed: (options: SiteImportOptions, file: String)
        do {
            parsed = try SiteImportOptions.parse(arguments)
        } catch {
            Command.printError("\(error); see har sites --help")
            return 64
        }
        let progress = isatty(STDERR_FILENO) == 1 ? ImportProgress() : nil
        do {
            let counts = try SiteImport.run(
                path: parsed.file, options: parsed.options, store: store, now: now, progress: progress?.show)
            progress?.finish()
            print(
                "\(parsed.file): \(counts.added) added, \(counts.updated) updated, \(counts.unchanged) unchanged; "
                    + "\(try store.count()) sites in the register")
            return 0
        } catch let failure as SiteImportFailure {
            progress?.finish()
            Command.printError("\(parsed.file) refused, nothing imported: \(failure)")
            return 65  // EX_DATAERR
        }
    }

    static func list(_ arguments: [String], store: any SiteStore) throws -> Int32 {
        var near: SitePoint?
        var limit = 50
        var offset = 0
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--near":
                guard let point = point(value) else {
                    Command.printError("--near takes LAT,LON in degrees, e.g. --near 51.5,-0.12")
                    return 64
                }
                near = point
            case "--limit":
                guard let number = Int(value), (1...10_000).contains(number) else {
                    Command.printError("--limit is 1 to 10000")
                    return 64
                }
                limit = number
            case "--offset":
                guard let number = Int(value), number >= 0 else {
                    Command.printError("--offset is 0 or more")
                    return 64
                }
                offset = number
            default:
                Command.printError("unknown option \(arguments[index]); see har sites --help")
                return 64
            }
            index += 2
        }
        let rows = try store.list(near: near, limit: limit, offset: offset)
        print(table(rows, distances: near != nil), terminator: "")
        return 0
    }

    /// `LAT,LON` in degrees, within range.
    static func point(_ text: String) -> SitePoint? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        return SitePoint(latitude: latitude, longitude: longitude)
    }

    /// The rows in aligned columns, for an operator's terminal.
    static func table(_ rows: [SiteListing], distances: Bool) -> String {
        var lines = [["id", "reference", "name", "designation", "grade", "latitude", "longitude"]]
        if distances { lines[0].append("distance") }
        for row in rows {
            let site = row.site
            var cells = [
                String(site.id), site.reference ?? "-", String(site.name.prefix(48)), site.designation ?? "-",
                site.grade ?? "-", String(format6(site.latitude)), String(format6(site.longitude)),
            ]
            if distances { cells.append(row.distanceMeters.map(metres) ?? "-") }
            lines.append(cells)
        }
        let widths = (0..<lines[0].count).map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { cells in
            zip(cells, widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) }
                .joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }.joined()
    }

    static func format6(_ value: Double) -> String {
        let scaled = (value * 1_000_000).rounded() / 1_000_000
        return "\(scaled)"
    }

    static func metres(_ value: Double) -> String {
        value < 1000 ? "\(Int(value.rounded())) m" : "\((value / 100).rounded() / 10) km"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The import's progress on a terminal (standard error, only when it is one): records and the share
/// of the file read, at most a few times a second, on one line.
final class ImportProgress {
    var last = 0.0

    func show(records: Int, read: Int, total: Int) {
        let now = Date().timeIntervalSince1970
        guard now - last >= 0.25 else { return }
        last = now
        let percent = total > 0 ? min(100, read * 100 / total) : 0
        Log.write("\r\(records) features read, \(percent)% of the file", to: STDERR_FILENO)
    }

    func finish() {
        if last > 0 { Log.write("\n", to: STDERR_FILENO) }
    }
}
