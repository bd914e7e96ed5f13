import Basics
import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `har sites import`: a GeoJSON or CSV file into the register, streamed (a buffer and a few batches in
/// memory at a time), in batches, all in one transaction of the store's: the first bad feature refuses
/// the whole file and the register stays as it was. One thread reads and parses the file while the
/// calling one writes the batch before (`SiteImportPipe`).
enum SiteImport {
    /// A batch is written when it holds this many sites (one multi-row INSERT: 2,000 × 10 parameters
    /// stays under SQLite's 32,766) or its outlines this many bytes, whichever comes first; with one
    /// batch waiting and one being made beside the one written, an import holds at most about three
    /// times this much of outlines. Fewer, larger statements matter on SQLite: each statement flushes
    /// the trigram index's pending terms into a new segment that later merges rewrite (bench/sites:
    /// batches of 500 cost about a third more CPU at 400,000 sites).
    static let batchSize = 2_000
    static let batchBytes = 4 << 20

    /// Imports `path`; `progress` is told of the bytes read now and then.
    static func run(
        path: String, options: SiteImportOptions, store: any SiteStore, now: Double,
        progress: ((_ records: Int, _ bytesRead: Int, _ bytesTotal: Int) -> Void)? = nil
    ) throws -> SiteImportCounts {
        try store.importSites(now: now) { sink in
            // Opened here, inside the transaction: a transaction run again reads the file again.
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw SiteImportFailure.file("cannot open \(path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                throw SiteImportFailure.file("\(path) is not a file")
            }
            let total = Int(status.st_size)
            let format = options.format ?? self.format(path: path, descriptor: descriptor)
            // The file is read and parsed on a thread of its own while this one writes the batches
            // before: the two overlap (bench/sites: parsing is about half of the import's CPU).
            let pipe = SiteImportPipe(capacity: 1)
            DispatchQueue.global().async {
                do {
                    try read(descriptor: descriptor, format: format, options: options, into: pipe)
                    pipe.close(nil)
                } catch {
                    pipe.close(error)
                }
            }
            var failure: (any Error)?
            var records = 0
            while true {
                switch pipe.take() {
                case .batch(let batch):
                    guard failure == nil else { continue }  // drained: the reader stops at its next batch
                    do {
                        try sink.upsert(batch.sites)
                        records = batch.records
                        progress?(batch.records, batch.bytesRead, total)
                    } catch {
                        failure = error
                        pipe.cancel()
                    }
                case .end(let error):
                    if let failure { throw failure }
                    if let error { throw error }
                    progress?(records, total, total)
                    return
                }
            }
        }
    }

    /// The reader's side: the file's features as batches into `pipe`, until the end or a bad feature
    /// (thrown: the writer then refuses the whole file); stops early when the writer gave up.
    private static func read(
        descriptor: Int32, format: SiteFileFormat, options: SiteImportOptions, into pipe: SiteImportPipe
    ) throws {
        var batch: [NewSite] = []
        batch.reserveCapacity(batchSize)
        var batchedBytes = 0
        var records = 0
        var offset: () -> Int = { 0 }
        // Hands the batch to the writer; throws when the writer has given up.
        let send = {
            guard pipe.put(.init(sites: batch, records: records, bytesRead: offset())) else {
                throw SiteImportFailure.cancelled
            }
            batch.removeAll(keepingCapacity: true)
            batchedBytes = 0
        }
        let each: (SiteRecord) throws -> Void = { record in
            let site = try record.site(options)
            batch.append(site)
            batchedBytes += site.name.utf8.count + (site.outline?.utf8.count ?? 0)
            records += 1
            if batch.count == batchSize || batchedBytes >= batchBytes { try send() }
        }
        switch format {
        case .geojson:
            let reader = JSONStreamReader(fileDescriptor: descriptor)
            offset = { reader.offset }
            do {
                try GeoJSONSites(reader: reader).read(each)
            } catch let error as JSONStreamError {
                throw SiteImportFailure.file("not valid GeoJSON: \(error)")
            }
        case .csv:
            let reader = CSVSites(fileDescriptor: descriptor, options: options)
            offset = { reader.offset }
            try reader.read(each)
        }
        if !batch.isEmpty { try send() }
    }

    /// By the extension, else by the first byte that is not white space (`{`: GeoJSON).
    static func format(path: String, descriptor: Int32) -> SiteFileFormat {
        let lower = path.lowercased()
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return .geojson }
        if lower.hasSuffix(".csv") { return .csv }
        var head = [UInt8](repeating: 0, count: 256)
        let got = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        let first = head.prefix(max(got, 0)).first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") ? .geojson : .csv
    }
}
