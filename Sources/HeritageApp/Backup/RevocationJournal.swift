import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The revocations of roles and kiosks, written outside the database so that restoring an older backup
/// does not bring back what was revoked after it: one JSON line per revocation in `revocations.jsonl`,
/// appended and flushed before the database's change is made (a line for a change that then failed
/// only makes a restore revoke again what nobody revoked: it fails closed). It lives in the data folder
/// (SQLite), or in the photo folder every PostgreSQL node shares, and the restore carries it over to
/// the restored folder. docs/OPERATIONS.md describes it.
struct RevocationJournal: Sendable {
    static let fileName = "revocations.jsonl"
    /// A journal read at a restore is at most this big (a line is about 150 bytes).
    static let readLimit = 64 << 20

    struct Entry: Codable, Equatable, Sendable {
        enum Kind: String, Codable, Sendable {
            case role, kiosk
        }
        var at: Double
        var kind: Kind
        /// The e-mail of a role, the id of a kiosk.
        var subject: String
        var actor: String
    }

    let path: String

    init(path: String) {
        self.path = path
    }

    init(configuration: Configuration) {
        path = Self.folder(configuration) + "/" + Self.fileName
    }

    /// The data folder, or with PostgreSQL the photo folder every node shares.
    static func folder(_ configuration: Configuration) -> String {
        configuration.databaseURL == nil ? configuration.dataDir : configuration.photosDirectory
    }

    /// Appends one line and flushes it; throws when it cannot, and the revocation is then not made.
    func record(_ entry: Entry) throws {
        var line = Array(try JSONEncoder().encode(entry))
        line.append(UInt8(ascii: "\n"))
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(.unavailable, "cannot record the revocation in \(path)") }
        defer { close(descriptor) }
        let wrote = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard wrote == line.count, fsync(descriptor) == 0 else {
            throw StoreError(.unavailable, "cannot record the revocation in \(path)")
        }
    }

    /// The revocations made at or after `since` (seconds), oldest first; lines that cannot be read are
    /// counted, not fatal (a line cut by a crash).
    func entries(since: Double) throws -> (entries: [Entry], unreadable: Int) {
        guard access(path, F_OK) == 0 else { return ([], 0) }
        guard BackupReader.size(of: path) <= Self.readLimit, let data = FileManager.default.contents(atPath: path)
        else { throw BackupError("cannot read \(path), or it is larger than \(Self.readLimit) bytes") }
        var entries: [Entry] = []
        var unreadable = 0
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            guard let entry = try? JSONDecoder().decode(Entry.self, from: Data(line)) else {
                unreadable += 1
                continue
            }
            if entry.at >= since { entries.append(entry) }
        }
        return (entries.sorted { $0.at < $1.at }, unreadable)
    }
}
