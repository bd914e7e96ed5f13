import SQLiteStorage

extension SQLDraftStore {
    /// Queues the draft (SUB-06), once per submit token (`SQLDraftStatements.submit`).
    func submit(draftLocalID: String, userID: Int64, fields: ReportFields, token: String, now: Double) throws
        -> SubmitResult
    {
        try database.write { db in
            try SQLDraftStatements<Backend>.submit(
                db, draftLocalID: draftLocalID, userID: userID, fields: fields, token: token, now: now,
                mailCap: mailImmediatePerHour)
        }
    }

    func namedPlaces(userID: Int64, limit: Int) throws -> [NamedPlace] {
        try database.read { db in try SQLDraftStatements<Backend>.namedPlaces(db, userID: userID, limit: limit) }
    }
}
