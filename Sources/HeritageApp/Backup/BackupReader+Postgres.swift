import FoundationEssentials

/// The check of a PostgreSQL backup's dump, without a server: `pg_restore --list` reads its table of
/// contents (a damaged or foreign file fails there), then `pg_restore --data-only` streams its rows
/// as text, which are counted table by table against the manifest, searched for the schema version
/// (`schema_migrations`) and for the photos still on their way to the platform, each of which must be
/// in the archive. The dump is what a restore would load: these counts are its own, not the manifest's.
extension BackupReader {
    func checkDump(_ dump: String, manifest: BackupManifest, archived: Set<String>) throws(BackupFailure) {
        let tools: PostgresTools
        do {
            tools = try PostgresTools(databaseURL: nil)
            try tools.run("pg_restore", ["--list", dump])
        } catch {
            throw .databaseDamaged("\(path): the PostgreSQL dump cannot be read: \(error)")
        }
        var reader = DumpRows()
        do {
            try tools.run("pg_restore", ["--data-only", "--file=-", dump]) { line in reader.take(line) }
        } catch {
            throw .databaseDamaged("\(path): the PostgreSQL dump's rows cannot be read: \(error)")
        }
        if !allowsNewerSchema { try Self.refuseNewer(schema: reader.schemaVersion, what: "the backup's database") }
        for (table, count) in manifest.rowCounts.sorted(by: { $0.key < $1.key }) {
            let counted = reader.counts[table] ?? 0
            guard counted == count else {
                throw .databaseDamaged(
                    "\(path): \(table) holds \(counted) rows in the dump, the manifest says \(count)")
            }
        }
        let missing = Set(manifest.missingPhotos)
        for localID in reader.neededPhotos where !archived.contains("photos/" + localID) && !missing.contains(localID) {
            throw .photoMissing("\(path): photo \(localID), not yet on the platform, is not in the backup")
        }
    }
}

/// Reads `pg_restore --data-only` text: `COPY public.TABLE (columns) FROM stdin;`, a row per line
/// (tab-separated, `\N` for null), `\.` at the end of each table.
private struct DumpRows {
    var counts: [String: Int] = [:]
    var schemaVersion = 0
    var neededPhotos: [String] = []
    private var table: String?
    private var columns: [String] = []

    mutating func take(_ line: ArraySlice<UInt8>) {
        guard let table else {
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("COPY "), let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
            else { return }
            var name = String(text.dropFirst(5).prefix { $0 != " " })
            if name.hasPrefix("public.") { name.removeFirst("public.".count) }
            name = name.filter { $0 != "\"" }
            self.table = name
            columns = text[text.index(after: open)..<close].split(separator: ",").map {
                $0.trimmingPrefix(" ").filter { $0 != "\"" }
            }
            counts[name, default: 0] += 0
            return
        }
        if line.elementsEqual("\\.".utf8) {
            self.table = nil
            return
        }
        counts[table, default: 0] += 1
        if table == "photos" || table == "schema_migrations" {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            func field(_ name: String) -> String? {
                guard let index = columns.firstIndex(of: name), index < fields.count, fields[index] != "\\N" else {
                    return nil
                }
                return fields[index]
            }
            if table == "schema_migrations" {
                schemaVersion = max(schemaVersion, Int(field("version") ?? "") ?? 0)
            } else if field("state") != "stored", let localID = field("local_id") {
                neededPhotos.append(localID)
            }
        }
    }
}
