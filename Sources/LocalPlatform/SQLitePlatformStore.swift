import FoundationEssentials
import PlatformClient
import SQLiteStorage

/// The running local platform's `LocalPlatformStore`: its own SQLite file (WAL, synchronous=FULL),
/// its own schema. Times are stored as seconds since 1970 (REAL), reports as columns per field.
public final class SQLitePlatformStore: LocalPlatformStore {
    private let pool: DatabasePool

    public init(path: String) throws {
        pool = try DatabasePool(path: path, configuration: .init(migrations: Self.migrations))
    }

    public func close() { pool.close() }

    static let migrations = [
        Migration(
            version: 1, name: "local platform schema",
            sql: """
                CREATE TABLE account (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash BLOB NOT NULL,
                    salt BLOB NOT NULL, iterations INTEGER NOT NULL, creation_time REAL NOT NULL);
                CREATE TABLE session (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES account(id),
                    app_key TEXT NOT NULL, creation_time REAL NOT NULL, expiration_time REAL NOT NULL);
                CREATE TABLE report (id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES account(id),
                    condition TEXT NOT NULL, designation TEXT NOT NULL, grade TEXT NOT NULL, occupancy TEXT NOT NULL,
                    owner_type TEXT NOT NULL, place_name TEXT NOT NULL, priority_category TEXT NOT NULL,
                    latitude REAL, longitude REAL, accuracy REAL, altitude REAL, is_anonymous INTEGER,
                    creation_time REAL NOT NULL, update_time REAL NOT NULL, deleted_time REAL);
                CREATE INDEX report_owner ON report(owner_id, creation_time);
                CREATE TABLE photo (id TEXT PRIMARY KEY, report_id TEXT NOT NULL REFERENCES report(id), path TEXT NOT NULL,
                    content_type TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL, latitude REAL, longitude REAL,
                    accuracy REAL, altitude REAL, captured_at TEXT, creation_time REAL NOT NULL);
                CREATE INDEX photo_report ON photo(report_id, creation_time);
                CREATE TABLE idempotent_answer (scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
                    status INTEGER NOT NULL, body BLOB NOT NULL, PRIMARY KEY (scope, key));
                """)
    ]

    public func account(email: String) throws -> AccountRecord? {
        try pool.read { try $0.query("SELECT * FROM account WHERE email = ?", .text(email)) }.first.map(Self.account)
    }

    public func insertAccount(_ a: AccountRecord) throws {
        try pool.write {
            _ = try $0.run(
                "INSERT INTO account VALUES (?, ?, ?, ?, ?, ?)", .text(a.id), .text(a.email),
                .blob(a.passwordHash), .blob(a.salt), SQLValue(a.iterations), .real(a.creationTime.seconds))
        }
    }

    public func insertSession(_ s: SessionRecord) throws {
        try pool.write {
            _ = try $0.run(
                "INSERT INTO session VALUES (?, ?, ?, ?, ?)", .text(s.id), .text(s.accountID), .text(s.appKey),
                .real(s.creationTime.seconds), .real(s.expirationTime.seconds))
        }
    }

    public func session(id: String) throws -> SessionRecord? {
        guard let row = try pool.read({ try $0.query("SELECT * FROM session WHERE id = ?", .text(id)) }).first else {
            return nil
        }
        return SessionRecord(
            id: try row.text("id"), accountID: try row.text("account_id"), appKey: try row.text("app_key"),
            creationTime: try row.date("creation_time"), expirationTime: try row.date("expiration_time"))
    }

    public func insertReport(_ r: ReportRecord) throws {
        let n = r.report
        try pool.write {
            _ = try $0.run(
                "INSERT INTO report VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(r.id), .text(r.ownerID), .text(n.condition.rawValue), .text(n.designation.rawValue),
                    .text(n.grade.rawValue), .text(n.occupancy.rawValue), .text(n.ownerType.rawValue),
                    .text(n.placeName),
                    .text(n.priorityCategory.rawValue), SQLValue(n.location?.latitude), SQLValue(n.location?.longitude),
                    SQLValue(n.location?.accuracy), SQLValue(n.location?.altitude), SQLValue(n.isAnonymous),
                    .real(r.creationTime.seconds), .real(r.updateTime.seconds), SQLValue(r.deletedTime?.seconds),
                ])
        }
    }

    public func report(id: String) throws -> ReportRecord? {
        try pool.read { try $0.query("SELECT * FROM report WHERE id = ?", .text(id)) }.first.map(Self.report)
    }

    public func reports(ownerID: String) throws -> [ReportRecord] {
        try pool.read {
            try $0.query(
                "SELECT * FROM report WHERE owner_id = ? AND deleted_time IS NULL ORDER BY creation_time, rowid",
                .text(ownerID))
        }.map(Self.report)
    }

    public func markReportDeleted(id: String, at time: Date) throws {
        try pool.write {
            _ = try $0.run(
                "UPDATE report SET deleted_time = ?, update_time = ? WHERE id = ?", .real(time.seconds),
                .real(time.seconds), .text(id))
        }
    }

    public func insertPhoto(_ p: PhotoRecord) throws {
        try pool.write {
            _ = try $0.run(
                "INSERT INTO photo VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(p.id), .text(p.reportID), .text(p.path), .text(p.contentType), SQLValue(p.size),
                    .text(p.sha256),
                    SQLValue(p.latitude), SQLValue(p.longitude), SQLValue(p.accuracy), SQLValue(p.altitude),
                    SQLValue(p.capturedAt), .real(p.creationTime.seconds),
                ])
        }
    }

    public func photos(reportID: String) throws -> [PhotoRecord] {
        try pool.read {
            try $0.query("SELECT * FROM photo WHERE report_id = ? ORDER BY creation_time, rowid", .text(reportID))
        }.map { row in
            PhotoRecord(
                id: try row.text("id"), reportID: try row.text("report_id"), path: try row.text("path"),
                contentType: try row.text("content_type"), size: Int(try row.int("size") ?? 0),
                sha256: try row.text("sha256"),
                latitude: try row.double("latitude"), longitude: try row.double("longitude"),
                accuracy: try row.double("accuracy"), altitude: try row.double("altitude"),
                capturedAt: try row.string("captured_at"), creationTime: try row.date("creation_time"))
        }
    }

    public func idempotentAnswer(scope: String, key: String) throws -> IdempotentAnswer? {
        guard
            let row = try pool.read({
                try $0.query("SELECT * FROM idempotent_answer WHERE scope = ? AND key = ?", .text(scope), .text(key))
            }).first
        else { return nil }
        return IdempotentAnswer(
            scope: scope, key: key, fingerprint: try row.text("fingerprint"),
            status: Int(try row.int("status") ?? 0), body: try row.blob("body") ?? [])
    }

    public func saveIdempotentAnswer(_ a: IdempotentAnswer) throws {
        try pool.write {
            _ = try $0.run(
                "INSERT INTO idempotent_answer VALUES (?, ?, ?, ?, ?)", .text(a.scope), .text(a.key),
                .text(a.fingerprint), SQLValue(a.status), .blob(a.body))
        }
    }

    private static func account(_ row: Row) throws -> AccountRecord {
        AccountRecord(
            id: try row.text("id"), email: try row.text("email"), passwordHash: try row.blob("password_hash") ?? [],
            salt: try row.blob("salt") ?? [], iterations: Int(try row.int("iterations") ?? 0),
            creationTime: try row.date("creation_time"))
    }

    private static func report(_ row: Row) throws -> ReportRecord {
        func code<C: RawRepresentable<String>>(_ name: String, _ type: C.Type) throws -> C {
            guard let code = C(rawValue: try row.text(name)) else { throw StoredValueError(column: name) }
            return code
        }
        var location: Location?
        if let latitude = try row.double("latitude"), let longitude = try row.double("longitude") {
            location = Location(
                latitude: latitude, longitude: longitude, accuracy: try row.double("accuracy"),
                altitude: try row.double("altitude"))
        }
        let anonymous = try row.int("is_anonymous").map { $0 != 0 }
        let report = NewReport(
            condition: try code("condition", Condition.self), designation: try code("designation", Designation.self),
            grade: try code("grade", Grade.self), occupancy: try code("occupancy", Occupancy.self),
            ownerType: try code("owner_type", OwnerType.self), placeName: try row.text("place_name"),
            priorityCategory: try code("priority_category", PriorityCategory.self), location: location,
            isAnonymous: anonymous)
        return ReportRecord(
            id: try row.text("id"), ownerID: try row.text("owner_id"), report: report,
            creationTime: try row.date("creation_time"), updateTime: try row.date("update_time"),
            deletedTime: try row.double("deleted_time").map { Date(timeIntervalSince1970: $0) })
    }
}

/// A stored value the schema does not allow (a NULL in a NOT NULL column, an unknown code).
struct StoredValueError: Error {
    var column: String
}

extension Row {
    fileprivate func text(_ name: String) throws -> String {
        guard let value = try string(name) else { throw StoredValueError(column: name) }
        return value
    }

    fileprivate func date(_ name: String) throws -> Date {
        guard let value = try double(name) else { throw StoredValueError(column: name) }
        return Date(timeIntervalSince1970: value)
    }
}

extension Date {
    fileprivate var seconds: Double { timeIntervalSince1970 }
}
