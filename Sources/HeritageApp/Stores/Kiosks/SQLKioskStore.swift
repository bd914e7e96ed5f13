import SQLiteStorage

/// `KioskStore` on either backend (migration 9): the statements of `KioskStatements`, each method one
/// transaction of the backend's (SQLite's one writer, or PostgreSQL's SERIALIZABLE with retry).
struct SQLKioskStore<Backend: SQLBackend>: KioskStore {
    let database: Backend
    /// Coordinators' immediate mail per hour, each (`mail_immediate_per_hour`).
    var mailImmediatePerHour = 10
    /// Where a revocation is written before the database's change, for a restore (`RevocationJournal`).
    var revocations: RevocationJournal?

    func create(_ kiosk: NewKiosk, actor: String, now: Double) throws -> Int64 {
        try database.write { db in try KioskStatements.create(db, kiosk, actor: actor, now: now) }
    }

    func issueEnrolment(kioskID: Int64, tokenHash: [UInt8], expiresAt: Double, actor: String, now: Double) throws
        -> Bool
    {
        try database.write { db in
            try KioskStatements.issueEnrolment(
                db, kioskID: kioskID, tokenHash: tokenHash, expiresAt: expiresAt, actor: actor, now: now)
        }
    }

    func enrol(tokenHash: [UInt8], credentialHash: [UInt8], now: Double) throws -> Int64? {
        try database.write { db in
            try KioskStatements.enrol(db, tokenHash: tokenHash, credentialHash: credentialHash, now: now)
        }
    }

    func kiosk(credentialHash: [UInt8]) throws -> Kiosk? {
        try database.read { db in try KioskStatements.kiosk(db, credentialHash: credentialHash) }
    }

    func kiosk(id: Int64) throws -> Kiosk? {
        try database.read { db in try KioskStatements.kiosk(db, id: id) }
    }

    func touch(kioskID: Int64, appVersion: String?, now: Double) throws {
        try database.write { db in try KioskStatements.touch(db, kioskID: kioskID, appVersion: appVersion, now: now) }
    }

    func kiosks(dayStart: Double, now: Double) throws -> [KioskSummary] {
        try database.read { db in try KioskStatements.kiosks(db, dayStart: dayStart, now: now) }
    }

    func revoke(id: Int64, actor: String, now: Double) throws -> Bool {
        try revocations?.record(.init(at: now, kind: .kiosk, subject: String(id), actor: actor))
        return try database.write { db in try KioskStatements.revoke(db, id: id, actor: actor, now: now) }
    }

    func userID(email: String) throws -> Int64? {
        try database.read { db in try KioskStatements.userID(db, email: email) }
    }

    func setAccount(kioskID: Int64, userID: Int64, actor: String, now: Double) throws -> Bool {
        try database.write { db in
            try KioskStatements.setAccount(db, kioskID: kioskID, userID: userID, actor: actor, now: now)
        }
    }

    func setDedicatedAccount(_ account: DedicatedAccount, kioskID: Int64, actor: String, now: Double) throws
        -> DedicatedAccountOutcome
    {
        try database.write { db in
            try KioskStatements.setDedicatedAccount(db, account, kioskID: kioskID, actor: actor, now: now)
        }
    }

    func visit(kioskID: Int64) throws -> Draft? {
        try database.read { db in try KioskStatements.visit(db, kioskID: kioskID) }
    }

    func startVisit(kioskID: Int64, localID: String, now: Double) throws -> (draft: Draft?, discarded: [String]) {
        try database.write { db in try KioskStatements.startVisit(db, kioskID: kioskID, localID: localID, now: now) }
    }

    func openDeviceReport(kioskID: Int64, localID: String, now: Double) throws -> DeviceDraftState? {
        try database.write { db in
            try KioskStatements.openDeviceReport(db, kioskID: kioskID, localID: localID, now: now)
        }
    }

    func endVisit(kioskID: Int64, now: Double) throws -> [String] {
        try database.write { db in try KioskStatements.endVisit(db, kioskID: kioskID) }
    }

    func submit(
        kioskID: Int64, draftLocalID: String, userID: Int64, fields: ReportFields, token: String, receipt: NewReceipt,
        now: Double
    ) throws -> SubmitResult {
        try database.write { db in
            let result = try SQLDraftStatements<Backend>.submit(
                db, draftLocalID: draftLocalID, userID: userID, fields: fields, token: token, now: now,
                mailCap: mailImmediatePerHour)
            guard result == .queued else { return result }
            guard
                let reportID = try db.scalar("SELECT id FROM reports WHERE local_id = ?", [.text(draftLocalID)]).int,
                try KioskStatements.recordSubmission(
                    db, kioskID: kioskID, reportID: reportID, receipt: receipt, now: now)
            else { throw StoreError(.invariant, "kiosk report missing after its submit") }
            return .queued
        }
    }

    func recordSubmission(kioskID: Int64, reportID: Int64, receipt: NewReceipt, now: Double) throws -> Bool {
        try database.write { db in
            try KioskStatements.recordSubmission(db, kioskID: kioskID, reportID: reportID, receipt: receipt, now: now)
        }
    }

    func receipt(code: String) throws -> ReceiptStatus? {
        try database.read { db in try KioskStatements.receipt(db, code: code) }
    }

    func claim(code: String, secretHash: [UInt8], userID: Int64, now: Double) throws -> ClaimOutcome {
        try database.write { db in
            try KioskStatements.claim(db, code: code, secretHash: secretHash, userID: userID, now: now)
        }
    }

    func claimed(userID: Int64) throws -> [ReceiptStatus] {
        try database.readStatement { db in try KioskStatements.claimed(db, userID: userID) }
    }
}
